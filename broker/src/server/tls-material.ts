// The TLS listeners' certificate, key and client CAs (TLS_CERT_FILE, TLS_KEY_FILE, TLS_CA_FILE,
// TLS_KEY_PASSWORD_FILE): read from PEM files and checked before use, so a bad file stops start-up
// (or a reload) with a message naming the setting, the file and what to do, not an OpenSSL code.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import type * as tls from 'node:tls';

/** Kafka's ssl.client.auth: whether a TLS listener asks clients for a certificate. */
export type TlsClientAuth = 'none' | 'requested' | 'required';
export const TLS_CLIENT_AUTH_VALUES: readonly TlsClientAuth[] = ['none', 'requested', 'required'];

/** Where the PEM files are (the settings of config.ts). */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
  keyPasswordFile?: string | undefined;
  caFile?: string | undefined;
}

/** The files' contents, checked: a certificate chain, its key and the CAs clients' certificates must chain to. */
export interface TlsMaterial {
  /** The file bytes as read: a reload compares them to see whether anything changed. */
  raw: { cert: Buffer; key: Buffer; ca: Buffer | undefined; passwordFile: Buffer | undefined };
  /** The server certificate (the chain's first). */
  certificate: crypto.X509Certificate;
  /** What tls.createSecureContext / server.setSecureContext take. */
  contextOptions: tls.SecureContextOptions;
}

export class TlsMaterialError extends Error {
  override readonly name = 'TlsMaterialError';
}

/** Oldest protocol a TLS listener speaks: TLS 1.0/1.1 are deprecated (RFC 8996); Kafka 3.x allows only 1.2 and 1.3. */
export const TLS_MIN_VERSION = 'TLSv1.2';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Reads a file named by a setting; the error says which setting, the path and why. */
function readSettingFile(setting: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === 'ENOENT'
        ? 'no such file'
        : e.code === 'EACCES'
          ? `not readable by this user (uid ${process.getuid?.() ?? '?'})`
          : e.code === 'EISDIR'
            ? 'is a folder'
            : e.message;
    throw new TlsMaterialError(`${setting}=${file}: ${why}; give the path of a readable PEM file`);
  }
}

/** The PEM certificates in `pem`, parsed; throws naming the setting when there are none or one is bad. */
function parseCertificates(setting: string, file: string, pem: Buffer): crypto.X509Certificate[] {
  const blocks = pem.toString('utf8').match(PEM_CERT) ?? [];
  if (blocks.length === 0) {
    throw new TlsMaterialError(
      `${setting}=${file}: no PEM certificate in it (no "-----BEGIN CERTIFICATE-----" block); give a PEM certificate${
        /PRIVATE KEY-----/.test(pem.toString('utf8'))
          ? ' (this file holds a private key: swapped with TLS_KEY_FILE?)'
          : ''
      }`,
    );
  }
  return blocks.map((block, i) => {
    try {
      return new crypto.X509Certificate(block);
    } catch (err) {
      throw new TlsMaterialError(
        `${setting}=${file}: certificate ${i + 1} of ${blocks.length} cannot be parsed (${(err as Error).message}); give PEM X.509 certificates`,
      );
    }
  });
}

/**
 * Reads and checks the files: the certificate (a chain may follow it, server first), the private
 * key (decrypted with the password file's first line when given), that the key belongs to the
 * certificate, and the CA certificates. Throws TlsMaterialError saying what is wrong and what to do.
 */
export function loadTlsMaterial(files: TlsFiles): TlsMaterial {
  const cert = readSettingFile('TLS_CERT_FILE', files.certFile);
  const key = readSettingFile('TLS_KEY_FILE', files.keyFile);
  const ca = files.caFile ? readSettingFile('TLS_CA_FILE', files.caFile) : undefined;
  const passwordFile = files.keyPasswordFile
    ? readSettingFile('TLS_KEY_PASSWORD_FILE', files.keyPasswordFile)
    : undefined;
  // The first line: `echo secret > file` leaves a newline that is not part of the password.
  const password = passwordFile?.toString('utf8').split(/\r?\n/)[0];

  const chain = parseCertificates('TLS_CERT_FILE', files.certFile, cert);
  const certificate = chain[0]!;
  let privateKey: crypto.KeyObject;
  try {
    privateKey = crypto.createPrivateKey({ key, format: 'pem', passphrase: password });
  } catch (err) {
    const msg = (err as Error).message;
    const code = (err as NodeJS.ErrnoException).code;
    const encrypted = /ENCRYPTED/.test(key.toString('utf8'));
    const hint =
      encrypted && !files.keyPasswordFile
        ? 'the key is encrypted: give its password in TLS_KEY_PASSWORD_FILE'
        : encrypted
          ? 'the password in TLS_KEY_PASSWORD_FILE does not decrypt it'
          : /CERTIFICATE-----/.test(key.toString('utf8'))
            ? 'this file holds a certificate, not a key: swapped with TLS_CERT_FILE?'
            : 'give a PEM private key (PKCS#8 "BEGIN PRIVATE KEY", or RSA/EC)';
    throw new TlsMaterialError(`TLS_KEY_FILE=${files.keyFile}: cannot read the private key (${code ?? msg}); ${hint}`);
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new TlsMaterialError(
      `TLS_KEY_FILE=${files.keyFile} is not the key of the certificate in TLS_CERT_FILE=${files.certFile} (subject ${certificate.subject.replace(/\n/g, ', ')}, serial ${certificate.serialNumber}); give the key the certificate was issued for (a renewal must replace both files)`,
    );
  }
  if (ca) parseCertificates('TLS_CA_FILE', files.caFile!, ca);
  const contextOptions: tls.SecureContextOptions = {
    cert,
    key,
    passphrase: password,
    ca,
    minVersion: TLS_MIN_VERSION,
  };
  return { raw: { cert, key, ca, passwordFile }, certificate, contextOptions };
}

/**
 * The files' bytes as one buffer, each length-prefixed (moving bytes from one file to the next is
 * a change): what a reload compares to tell whether anything was renewed.
 */
export function materialBytes(raw: TlsMaterial['raw']): Buffer {
  return Buffer.concat(
    [raw.cert, raw.key, raw.ca, raw.passwordFile].flatMap((p) => {
      const len = Buffer.alloc(4);
      len.writeInt32BE(p ? p.length : -1);
      return p ? [len, p] : [len];
    }),
  );
}

/** Whether the certificate's validity has ended (clients refuse it). */
export function isExpired(c: crypto.X509Certificate, now = Date.now()): boolean {
  return Date.parse(c.validTo) < now;
}

/** A certificate as logs name it: subject, SHA-256 fingerprint and end of validity. */
export function describeCertificate(c: crypto.X509Certificate): Record<string, string> {
  return { subject: c.subject.replace(/\n/g, ', '), fingerprint256: c.fingerprint256, validTo: c.validTo };
}

/**
 * The subject of a client certificate as Java's X500Principal.getName() writes it (RFC 2253): the
 * relative names last to first, comma-separated, e.g. `CN=client,OU=eng,O=acme,C=US`. That is the
 * principal name Kafka's DefaultKafkaPrincipalBuilder gives an SSL client under the DEFAULT
 * ssl.principal.mapping.rules. Node's subject lists them first to last, one per line, with the
 * values already escaped as RFC 2253 asks (`,` `+` `"` `\` `<` `>` `;`, a leading `#` or space).
 * Known difference: an attribute outside RFC 2253's keywords (emailAddress, serialNumber) keeps
 * OpenSSL's short name, where Java writes its OID and the value's DER in hex (`1.2.840...=#16...`).
 */
export function rfc2253Subject(c: crypto.X509Certificate): string {
  return c.subject
    .split('\n')
    .filter((rdn) => rdn !== '')
    .reverse()
    .map((rdn) => rdn.replace(/ \+ /g, '+')) // a multi-valued RDN: OpenSSL's " + ", RFC 2253's "+"
    .map((rdn) => rdn.replace(/(^|\+)street=/g, '$1STREET=')) // RFC 2253's keyword; OpenSSL's short name is lower case
    .join(',');
}
