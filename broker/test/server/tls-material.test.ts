// TLS files are checked before use: each bad file stops start-up (or a reload) with a message
// naming the setting, the file and what to do; the client certificate's subject reads as Kafka's
// default principal builder writes it (RFC 2253, as Java's X500Principal.getName()).
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../../src/server/config';
import { isExpired, loadTlsMaterial, rfc2253Subject, TlsMaterialError } from '../../src/server/tls-material';
import { describeWithTools } from '../support/external-tools';
import { makeCa, TestCa } from '../support/tls-certs';
import { tempDir } from '../integration/helpers';

describe('TLS settings', () => {
  it('a tls:// or sasl+tls:// listener without TLS_CERT_FILE / TLS_KEY_FILE refuses to start', () => {
    expect(() => loadConfig({ LISTENER_URL: 'tcp://127.0.0.1:9092,tls://0.0.0.0:9093' })).toThrow(
      new ConfigError(
        'LISTENER_URL has TLS listener(s) (SSL=0.0.0.0:9093) but TLS_CERT_FILE is not set: give TLS_CERT_FILE and TLS_KEY_FILE (PEM), or use tcp:// / sasl+tcp://',
      ),
    );
    expect(() => loadConfig({ LISTENER_URL: 'sasl+tls://0.0.0.0:9093', TLS_CERT_FILE: '/c.pem' })).toThrow(
      /TLS_KEY_FILE is not set/,
    );
  });

  it('TLS_CLIENT_AUTH takes Kafka ssl.client.auth values, and requested/required need TLS_CA_FILE', () => {
    const tlsEnv = { LISTENER_URL: 'tls://0.0.0.0:9093', TLS_CERT_FILE: '/c.pem', TLS_KEY_FILE: '/k.pem' };
    expect(loadConfig(tlsEnv).tlsClientAuth).toBe('none');
    expect(loadConfig({ ...tlsEnv, TLS_CLIENT_AUTH: 'Required', TLS_CA_FILE: '/ca.pem' }).tlsClientAuth).toBe(
      'required',
    );
    expect(() => loadConfig({ ...tlsEnv, TLS_CLIENT_AUTH: 'want' })).toThrow(
      'TLS_CLIENT_AUTH="want" is not valid: expected none|requested|required',
    );
    expect(() => loadConfig({ ...tlsEnv, TLS_CLIENT_AUTH: 'requested' })).toThrow(
      /TLS_CLIENT_AUTH=requested needs TLS_CA_FILE/,
    );
  });

  it('checks for renewed certificates every 30 s by default', () => {
    expect(loadConfig({}).tlsReloadIntervalMs).toBe(30_000);
    expect(loadConfig({ MINNOW_TLS_RELOAD_INTERVAL_MS: '0' }).tlsReloadIntervalMs).toBe(0);
    expect(() => loadConfig({ MINNOW_TLS_RELOAD_INTERVAL_MS: '5' })).toThrow(
      'MINNOW_TLS_RELOAD_INTERVAL_MS="5" is not valid: expected 0 or an integer 100..86400000',
    );
  });
});

describeWithTools('openssl')('TLS files', () => {
  const tmp = tempDir('minnow-tls-files-');
  let ca: TestCa;
  let server: { cert: string; key: string };
  const file = (name: string, content: string | Buffer) => {
    const p = path.join(tmp.dir, name);
    fs.writeFileSync(p, content);
    return p;
  };
  beforeAll(() => {
    ca = makeCa(path.join(tmp.dir, 'ca'));
    server = ca.server();
  });
  afterAll(() => tmp.cleanup());

  const load = (certFile: string, keyFile: string, extra: { caFile?: string; keyPasswordFile?: string } = {}) =>
    loadTlsMaterial({ certFile, keyFile, ...extra });

  it('loads a certificate with its chain, its key and the CA file', () => {
    const chain = file('chain.pem', fs.readFileSync(server.cert, 'utf8') + fs.readFileSync(ca.cert, 'utf8'));
    const m = load(chain, server.key, { caFile: ca.cert });
    expect(m.certificate.subject).toBe('O=minnow tests\nCN=localhost');
    expect(m.contextOptions.minVersion).toBe('TLSv1.2');
  });

  it('tells an expired certificate (the test CA issues them for two days)', () => {
    const m = load(server.cert, server.key);
    expect(isExpired(m.certificate)).toBe(false);
    expect(isExpired(m.certificate, Date.now() + 3 * 24 * 3600 * 1000)).toBe(true);
  });

  it('names the setting and the file that is missing or unreadable', () => {
    const missing = path.join(tmp.dir, 'nope.pem');
    expect(() => load(missing, server.key)).toThrow(
      new TlsMaterialError(`TLS_CERT_FILE=${missing}: no such file; give the path of a readable PEM file`),
    );
    expect(() => load(server.cert, tmp.dir)).toThrow(`TLS_KEY_FILE=${tmp.dir}: is a folder`);
    expect(() => load(server.cert, server.key, { caFile: missing })).toThrow(`TLS_CA_FILE=${missing}: no such file`);
  });

  it('says when the files are swapped or hold no certificate', () => {
    expect(() => load(server.key, server.cert)).toThrow(
      /TLS_CERT_FILE=.*: no PEM certificate in it .* \(this file holds a private key: swapped with TLS_KEY_FILE\?\)/,
    );
    expect(() => load(server.cert, server.cert)).toThrow(
      /TLS_KEY_FILE=.*: cannot read the private key .*this file holds a certificate, not a key/,
    );
    expect(() => load(server.cert, server.key, { caFile: file('garbage.pem', 'hello\n') })).toThrow(
      /TLS_CA_FILE=.*garbage.pem: no PEM certificate in it/,
    );
  });

  it('refuses a key that is not the certificate’s', () => {
    const otherServer = ca.server('other-server');
    expect(() => load(server.cert, otherServer.key)).toThrow(
      /TLS_KEY_FILE=.*other-server.key is not the key of the certificate in TLS_CERT_FILE=.*server.pem \(subject O=minnow tests, CN=localhost, serial [0-9A-F]+\); give the key the certificate was issued for/,
    );
  });

  it('decrypts an encrypted key with TLS_KEY_PASSWORD_FILE’s first line, and says when it cannot', () => {
    const enc = ca.server('encrypted', { keyPassword: 's3cret' });
    expect(fs.readFileSync(enc.key, 'utf8')).toContain('ENCRYPTED PRIVATE KEY');
    expect(() => load(enc.cert, enc.key)).toThrow(/the key is encrypted: give its password in TLS_KEY_PASSWORD_FILE/);
    expect(() => load(enc.cert, enc.key, { keyPasswordFile: file('wrong.txt', 'nope\n') })).toThrow(
      /the password in TLS_KEY_PASSWORD_FILE does not decrypt it/,
    );
    const m = load(enc.cert, enc.key, { keyPasswordFile: file('right.txt', 's3cret\n') });
    expect(m.contextOptions.passphrase).toBe('s3cret');
  });

  it('writes the subject as Kafka names an mTLS principal (RFC 2253: last RDN first, escaped)', () => {
    const subject = (subj: string) => {
      const key = path.join(tmp.dir, 'subject.key');
      const cert = path.join(tmp.dir, 'subject.pem');
      const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
      const args = [
        'req',
        '-x509',
        ...ec,
        '-keyout',
        key,
        '-out',
        cert,
        '-multivalue-rdn',
        '-subj',
        subj,
        '-days',
        '1',
      ];
      execFileSync('openssl', args, { stdio: 'ignore' });
      return rfc2253Subject(new crypto.X509Certificate(fs.readFileSync(cert)));
    };
    expect(subject('/C=US/O=acme/OU=eng/CN=client')).toBe('CN=client,OU=eng,O=acme,C=US');
    expect(subject('/C=GB/ST=London/L=London/street=1 Main St/O=x/CN=host1.example.com')).toBe(
      'CN=host1.example.com,O=x,STREET=1 Main St,L=London,ST=London,C=GB',
    );
    // A multi-valued RDN keeps its order, joined by "+", as Java's RDN.toRFC2253String does.
    expect(subject('/DC=com/DC=example/O=Acme, Inc./CN=a+UID=b')).toBe('CN=a+UID=b,O=Acme\\, Inc.,DC=example,DC=com');
    expect(subject('/O=#hash;semi/CN= lead"q')).toBe('CN=\\ lead\\"q,O=\\#hash\\;semi');
  });
});
