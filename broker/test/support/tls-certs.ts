// Test certificates made with the openssl CLI in a temp folder: a CA, server certificates it issues
// for 127.0.0.1 / localhost, client certificates for mTLS, and a second, untrusted CA. EC P-256
// keys: made in milliseconds, and every client (librdkafka, Python's ssl, Java, Node) takes them.
// Tests that use it need the 'openssl' tool (external-tools.ts).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface CertFiles {
  cert: string;
  key: string;
}

export interface TestCa extends CertFiles {
  dir: string;
  /** A server certificate (SAN IP:127.0.0.1, DNS:localhost) issued by this CA, as `<name>.pem` / `<name>.key`. */
  server(name?: string, opts?: { keyPassword?: string }): CertFiles;
  /** A client certificate with this subject (openssl's -subj form, e.g. `/O=acme/OU=eng/CN=client`). */
  client(name: string, subject: string): CertFiles;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], timeout: 20_000 });
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A CA (`<name>.pem`, `<name>.key`) in `dir`, valid two days, that issues server and client certificates. */
export function makeCa(dir: string, name = 'ca', subject = '/O=minnow tests/CN=minnow test CA'): TestCa {
  fs.mkdirSync(dir, { recursive: true });
  const ca = { cert: path.join(dir, `${name}.pem`), key: path.join(dir, `${name}.key`) };
  openssl(
    [
      'req',
      '-x509',
      ...EC_KEY,
      '-keyout',
      ca.key,
      '-out',
      ca.cert,
      '-subj',
      subject,
      '-days',
      '2',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  let serial = 1;
  const issue = (file: string, subject: string, extensions: string, keyPassword?: string): CertFiles => {
    const out = { cert: path.join(dir, `${file}.pem`), key: path.join(dir, `${file}.key`) };
    const csr = path.join(dir, `${file}.csr`);
    const ext = path.join(dir, `${file}.ext`);
    fs.writeFileSync(ext, extensions);
    openssl(['req', '-new', ...EC_KEY, '-keyout', out.key, '-out', csr, '-subj', subject], dir);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        ca.cert,
        '-CAkey',
        ca.key,
        '-set_serial',
        String(Date.now() * 100 + serial++),
        '-days',
        '2',
        '-extfile',
        ext,
        '-out',
        out.cert,
      ],
      dir,
    );
    if (keyPassword !== undefined) {
      const plain = `${out.key}.plain`;
      fs.renameSync(out.key, plain);
      openssl(
        ['pkcs8', '-topk8', '-v2', 'aes-256-cbc', '-in', plain, '-out', out.key, '-passout', `pass:${keyPassword}`],
        dir,
      );
      fs.rmSync(plain);
    }
    fs.rmSync(csr);
    fs.rmSync(ext);
    return out;
  };
  return {
    ...ca,
    dir,
    server: (file = 'server', opts = {}) =>
      issue(
        file,
        '/O=minnow tests/CN=localhost',
        'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
        opts.keyPassword,
      ),
    client: (file, subject) =>
      issue(
        file,
        subject,
        'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n',
      ),
  };
}
