// A renewed TLS certificate is served to new connections without a restart, the open ones keep
// working, and a renewal whose key does not match keeps the current certificate and says why.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { makeCa, TestCa } from '../support/tls-certs';
import { startTestBroker, tempDir } from './helpers';
import { SSL, apiVersionsOverTls, openTls, capturingLogger } from './tls-support';

describeWithTools('openssl')('certificate renewal without a restart', () => {
  const tmp = tempDir('minnow-tls-reload-');
  let ca: TestCa;
  let broker: RunningBroker;
  const errors: string[] = [];
  const live = { cert: '', key: '' };
  beforeAll(async () => {
    ca = makeCa(path.join(tmp.dir, 'ca'));
    const first = ca.server('first');
    live.cert = path.join(tmp.dir, 'live.pem');
    live.key = path.join(tmp.dir, 'live.key');
    fs.copyFileSync(first.cert, live.cert);
    fs.copyFileSync(first.key, live.key);
    broker = await startTestBroker('memory://', {
      config: { listeners: [SSL], tlsCertFile: live.cert, tlsKeyFile: live.key, tlsReloadIntervalMs: 100 },
      logger: capturingLogger(errors),
    });
  });
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  /** The certificate a new connection gets, once it differs from `old` (bounded: 15 s). */
  async function waitForNewCertificate(old: string): Promise<string> {
    for (let i = 0; i < 150; i++) {
      const r = await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) });
      if (r.answered && r.fingerprint256 !== old) return r.fingerprint256;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('new connections still get the old certificate after 15 s');
  }

  it('new connections get the renewed certificate, the open one keeps working', async () => {
    const old = await openTls(broker.port, { ca: fs.readFileSync(ca.cert) });
    try {
      expect(await old.ask()).toBe(true);
      const renewed = ca.server('renewed');
      const expected = new (await import('node:crypto')).X509Certificate(fs.readFileSync(renewed.cert)).fingerprint256;
      // As a renewal tool would: a new file renamed over the old one, cert then key.
      fs.copyFileSync(renewed.cert, `${live.cert}.new`);
      fs.renameSync(`${live.cert}.new`, live.cert);
      fs.copyFileSync(renewed.key, `${live.key}.new`);
      fs.renameSync(`${live.key}.new`, live.key);
      expect(await waitForNewCertificate(old.fingerprint256)).toBe(expected);
      expect(await old.ask()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      old.close();
    }
  }, 30_000);

  it('a renewal whose key does not match keeps the current certificate and logs why', async () => {
    const before = await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) });
    expect(before.answered).toBe(true);
    const a = ca.server('mismatch-a');
    const b = ca.server('mismatch-b');
    fs.copyFileSync(a.cert, live.cert);
    fs.copyFileSync(b.key, live.key);
    expect(broker.reloadTls()).toBe('failed');
    expect(errors.join('\n')).toMatch(/reload failed.*TLS_KEY_FILE=.*is not the key of the certificate/);
    const after = await apiVersionsOverTls(broker.port, { ca: fs.readFileSync(ca.cert) });
    expect(after).toEqual(before);
  });
});
