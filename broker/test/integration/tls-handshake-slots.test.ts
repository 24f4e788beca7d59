// A TLS client that never finishes its handshake, or speaks plaintext to the TLS listener, gives its
// connection slot back.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { ApiKey } from '../../src/protocol/api-keys';
import { encodeRequestFrame } from '../../src/protocol/request-frame';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { makeCa, TestCa } from '../support/tls-certs';
import { startTestBroker, tempDir } from './helpers';
import { SSL, apiVersionsOverTls, closedWithin } from './tls-support';

describeWithTools('openssl')('TLS handshakes and connection slots', () => {
  const tmp = tempDir('minnow-tls-slots-');
  let ca: TestCa;
  let broker: RunningBroker;
  beforeAll(async () => {
    ca = makeCa(path.join(tmp.dir, 'ca'));
    const server = ca.server();
    // One slot; a handshake not finished within CONNECTIONS_MAX_IDLE_MS (3 s here) frees it.
    broker = await startTestBroker('memory://', {
      config: {
        listeners: [SSL],
        tlsCertFile: server.cert,
        tlsKeyFile: server.key,
        maxConnections: 1,
        connectionsMaxIdleMs: 3000,
      },
    });
  });
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it('a client that never finishes its handshake holds a slot, then is disconnected and frees it', async () => {
    const silent = net.connect(broker.port, '127.0.0.1');
    silent.on('error', () => {});
    await new Promise((resolve) => silent.once('connect', resolve));
    // The silent socket holds the only slot: a real client is refused meanwhile.
    expect((await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) })).answered).toBe(false);
    await closedWithin(silent, 20_000, 'a TLS client that never sent a ClientHello');
    expect((await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) })).answered).toBe(true);
  }, 30_000);

  it('a plaintext client on the TLS listener gives its slot back', async () => {
    const socket = net.connect(broker.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(encodeRequestFrame(ApiKey.ApiVersions, 0, 1, 'plaintext', {}));
    await closedWithin(socket, 15_000, 'plaintext client on the TLS listener');
    // Bounded retry: the broker sees the close a moment after the client does.
    let answered = false;
    for (let i = 0; i < 50 && !answered; i++) {
      answered = (await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) })).answered;
      if (!answered) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answered).toBe(true);
  }, 30_000);
});
