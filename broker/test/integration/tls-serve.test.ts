// `minnow serve` with a TLS listener, as an operator runs it: bad TLS files stop start-up with a
// message saying which file and why, SIGHUP loads a renewed certificate (and does not kill the
// broker), and the memory a TLS connection costs, read from the child's /proc status.
import { X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { describeWithTools } from '../support/external-tools';
import { makeCa, TestCa } from '../support/tls-certs';
import { run, tempDir } from './helpers';
import { MiB, MINNOW, startChildBroker } from './serve-child';

const serve = (args: string[]) =>
  run('node', [MINNOW, 'serve', '--storage', 'memory://', '--listener', 'tls://127.0.0.1:0', ...args], {
    timeoutMs: 20_000,
  });

/** The certificate a new TLS connection gets (its SHA-256 fingerprint), after the handshake only. */
function peerFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, ca: fs.readFileSync(ca) }, () => {
      resolve(s.getPeerX509Certificate()!.fingerprint256);
      s.destroy();
    });
    s.once('error', reject);
  });
}

describeWithTools('openssl')('minnow serve with a tls:// listener', () => {
  const tmp = tempDir('minnow-tls-serve-');
  let ca: TestCa;
  beforeAll(() => {
    ca = makeCa(path.join(tmp.dir, 'ca'));
  });
  afterAll(() => tmp.cleanup());

  it('refuses to start without a certificate, or with one it cannot use, saying which file and why', async () => {
    const none = await serve([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('but TLS_CERT_FILE is not set: give TLS_CERT_FILE and TLS_KEY_FILE (PEM)');

    const server = ca.server();
    const missing = path.join(tmp.dir, 'missing.pem');
    const r = await serve(['--tls-cert-file', missing, '--tls-key-file', server.key]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`TLS_CERT_FILE=${missing}: no such file; give the path of a readable PEM file`);

    const stranger = ca.server('stranger');
    const mismatch = await serve(['--tls-cert-file', server.cert, '--tls-key-file', stranger.key]);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toMatch(/TLS_KEY_FILE=.*stranger.key is not the key of the certificate in TLS_CERT_FILE/);
  }, 60_000);

  it('SIGHUP loads a renewed certificate for new connections; the broker keeps running', async () => {
    const first = ca.server('first');
    const live = { cert: path.join(tmp.dir, 'live.pem'), key: path.join(tmp.dir, 'live.key') };
    fs.copyFileSync(first.cert, live.cert);
    fs.copyFileSync(first.key, live.key);
    const broker = await startChildBroker([
      '--storage',
      'memory://',
      '--listener',
      'tls://127.0.0.1:0',
      '--tls-cert-file',
      live.cert,
      '--tls-key-file',
      live.key,
      '--tls-reload-interval-ms',
      '0', // only SIGHUP: whatever changes below is its doing
    ]);
    try {
      const before = await peerFingerprint(broker.port, ca.cert);
      expect(before).toBe(new X509Certificate(fs.readFileSync(first.cert)).fingerprint256);
      const renewed = ca.server('renewed');
      fs.copyFileSync(renewed.cert, live.cert);
      fs.copyFileSync(renewed.key, live.key);
      const expected = new X509Certificate(fs.readFileSync(renewed.cert)).fingerprint256;
      expect(await peerFingerprint(broker.port, ca.cert)).toBe(before); // no polling: not yet
      process.kill(broker.pid, 'SIGHUP');
      let now = before;
      for (let i = 0; i < 100 && now !== expected; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        now = await peerFingerprint(broker.port, ca.cert);
      }
      expect(now).toBe(expected);
      expect(broker.stderr()).toContain('TLS certificate reloaded');
    } finally {
      expect(await broker.stop()).toBe(0);
    }
  }, 60_000);

  it('an idle TLS connection costs the broker little memory', async () => {
    // 200 connections handshaken and idle, in the child broker's RSS (VmRSS). Bound: 100 KiB per
    // connection on top of the broker's own, 20 MiB for 200: a 1 GiB t3.micro at the default
    // MAX_CONNECTIONS=1000 then spends at most ~100 MiB on TLS state.
    const server = ca.server('memory');
    const broker = await startChildBroker([
      '--storage',
      'memory://',
      '--listener',
      'tls://127.0.0.1:0',
      '--tls-cert-file',
      server.cert,
      '--tls-key-file',
      server.key,
    ]);
    const sockets: tls.TLSSocket[] = [];
    try {
      const connectOne = () =>
        new Promise<tls.TLSSocket>((resolve, reject) => {
          const s = tls.connect({ host: '127.0.0.1', port: broker.port, ca: fs.readFileSync(ca.cert) }, () =>
            resolve(s),
          );
          s.once('error', reject);
        });
      // Warm up (first handshakes load OpenSSL's tables), then measure from there.
      for (let i = 0; i < 10; i++) sockets.push(await connectOne());
      await new Promise((resolve) => setTimeout(resolve, 200));
      const base = broker.memory().rss;
      for (let i = 0; i < 200; i++) sockets.push(await connectOne());
      await new Promise((resolve) => setTimeout(resolve, 200));
      const grown = broker.memory().rss - base;
      console.log(
        `200 idle TLS connections: +${(grown / MiB).toFixed(1)} MiB RSS (${Math.round(grown / 200 / 1024)} KiB each)`,
      );
      expect(grown).toBeLessThan(20 * MiB);
    } finally {
      for (const s of sockets) s.destroy();
      await broker.stop();
    }
  }, 60_000);
});
