import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ADMIN_PASSWORD,
  ADMIN_SECRET_ARN,
  CA_PARAMETER,
  PUBLIC_DNS,
  REGION,
  INSTALL_SH,
  createSandbox,
  expectSuccess,
  named,
  runInstall,
  type InstallRun,
  type Sandbox,
} from './helpers/install-sandbox';
import { describeWithTools, itWithTools } from '../broker/test/support/external-tools';
import { credentialFromPassword, passwordMatches, SCRAM_MECHANISM_NAMES } from '../broker/src/sasl/scram-crypto';
import { openSyncStorage } from '../broker/src/storage/open-storage';

// What install.sh does with MINNOW_SECURITY=on (the kit's default): a CA and a server certificate
// on the data volume, the CA published to SSM, the admin password as a root-only file handed to the
// broker as a systemd credential. openssl runs for real; AWS and IMDS are the sandbox's stubs.

const puts = (run: InstallRun) => named(run, 'aws').filter((c) => c.includes('ssm put-parameter'));

const tls = (sb: Sandbox, file: string) => path.join(sb.root, 'data', 'tls', file);
const read = (file: string) => fs.readFileSync(file, 'utf8');
const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

function openssl(...args: string[]): string {
  const result = spawnSync('openssl', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}
const certText = (file: string) => openssl('x509', '-noout', '-text', '-in', file);
const verify = (sb: Sandbox) => openssl('verify', '-CAfile', tls(sb, 'ca.crt'), tls(sb, 'server.crt')).trim();

/** A new instance taking over the volume: root disk and its /etc gone, the volume's files kept. */
function replaceInstance(sb: Sandbox): void {
  for (const dir of ['etc', 'opt']) fs.rmSync(path.join(sb.root, dir), { recursive: true, force: true });
  // The old instance is gone and has let go of the volume (install-takeover.test.ts: while it still holds it).
  for (const file of ['packages', 'user-minnow', 'mounted', 'volume-holder', 'volume-device']) {
    fs.rmSync(path.join(sb.state, file), { force: true });
  }
  fs.rmSync(path.join(sb.root, 'dev'), { recursive: true, force: true });
}

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('install.sh with security on: certificate, CA publication, admin password', () => {
  let sb: Sandbox;
  let first: InstallRun;
  beforeAll(async () => {
    sb = await createSandbox();
    first = runInstall(sb);
  });

  test('succeeds', () => expectSuccess(first));

  test('a CA and a server certificate signed by it, for the public DNS name, the Elastic IP and loopback', () => {
    expect(verify(sb)).toBe(`${tls(sb, 'server.crt')}: OK`);
    const server = certText(tls(sb, 'server.crt'));
    expect(server).toContain(`Subject: CN = ${PUBLIC_DNS}`);
    expect(server).toMatch(
      new RegExp(`DNS:${PUBLIC_DNS.replace(/\./g, '\\.')}, IP Address:203\\.0\\.113\\.99, IP Address:127\\.0\\.0\\.1`),
    );
    expect(server).toMatch(/Extended Key Usage:\s*\n\s*TLS Web Server Authentication/);
    expect(server).toMatch(/Basic Constraints: critical\s*\n\s*CA:FALSE/);
    const ca = certText(tls(sb, 'ca.crt'));
    expect(ca).toMatch(/Basic Constraints: critical\s*\n\s*CA:TRUE, pathlen:0/);
    expect(ca).toContain('Subject: CN = minnow CA vol-');
  });

  test('keys are 0600: the server key for the broker user, the CA key root-only in a 0700 directory', () => {
    expect(mode(tls(sb, 'server.key'))).toBe('600');
    expect(mode(tls(sb, 'ca/ca.key'))).toBe('600');
    expect(mode(tls(sb, 'ca'))).toBe('700');
    expect(mode(tls(sb, 'server.crt'))).toBe('644');
    expect(mode(path.join(sb.root, 'data', 'tls'))).toBe('750');
    expect(named(first, 'chown')).toContain(`chown minnow:minnow ${tls(sb, 'server.key')}`);
    expect(named(first, 'chown')).not.toContain(expect.stringContaining('ca.key'));
    expect(fs.existsSync(tls(sb, 'ca.key'))).toBe(false); // never beside what the broker reads
  });

  test('publishes the CA certificate to the stack parameter', () => {
    expect(puts(first)).toEqual([
      `aws --region ${REGION} ssm put-parameter --name ${CA_PARAMETER} --overwrite --value file://${tls(sb, 'ca.crt')}`,
    ]);
    expect(read(path.join(sb.state, 'ssm-ca'))).toBe(read(tls(sb, 'ca.crt')));
    expect(read(tls(sb, 'ca.crt'))).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n$/);
  });

  test('the admin password: a root-only file from the secret, given to the broker as a systemd credential', () => {
    const passwordFile = path.join(sb.root, 'etc', 'minnow', 'admin-password');
    expect(read(passwordFile)).toBe(ADMIN_PASSWORD);
    expect(mode(passwordFile)).toBe('600');
    expect(read(path.join(sb.root, 'etc', 'systemd', 'system', 'minnow.service.d', 'security.conf'))).toBe(
      [
        '# Written by minnow-install (MINNOW_SECURITY=on): the admin password as a systemd credential.',
        '[Service]',
        `LoadCredential=admin-password:${passwordFile}`,
        'Environment=MINNOW_ADMIN_PASSWORD_FILE=%d/admin-password',
        '',
      ].join('\n'),
    );
  });

  itWithTools('systemd-analyze')('systemd-analyze verify accepts the unit with its credential drop-in', () => {
    const unit = path.join(sb.root, 'etc', 'systemd', 'system', 'minnow.service');
    const dropin = path.join(sb.root, 'etc', 'systemd', 'system', 'minnow.service.d', 'security.conf');
    const clean = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    expect({ status: clean.status, output: clean.stdout + clean.stderr }).toEqual({ status: 0, output: '' });
    // The verifier reads the drop-in beside the unit: a bad key in it is reported.
    const text = read(dropin);
    try {
      fs.writeFileSync(dropin, `${text}BogusKey=1\n`);
      const bad = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
      expect(bad.stdout + bad.stderr).toContain("security.conf:5: Unknown key 'BogusKey'");
    } finally {
      fs.writeFileSync(dropin, text);
    }
  });

  test('a replacement instance keeps the certificate on the volume: not regenerated, republished if reset', () => {
    const before = ['ca.crt', 'ca/ca.key', 'server.crt', 'server.key'].map((f) => read(tls(sb, f)));
    replaceInstance(sb);
    // A stack update that touched the parameter resets it to its placeholder.
    fs.writeFileSync(path.join(sb.state, 'ssm-ca'), 'pending: the instance publishes its CA certificate here\n');
    const run = runInstall(sb);
    expectSuccess(run);
    expect(['ca.crt', 'ca/ca.key', 'server.crt', 'server.key'].map((f) => read(tls(sb, f)))).toEqual(before);
    expect(run.stderr).not.toMatch(/generating the CA|issuing the server certificate/);
    expect(puts(run)).toHaveLength(1);
    expect(read(path.join(sb.state, 'ssm-ca'))).toBe(before[0]);
    expect(read(path.join(sb.root, 'etc', 'minnow', 'admin-password'))).toBe(ADMIN_PASSWORD);
  });
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('install.sh with security on: edge cases', () => {
  test('a volume restored into another stack (new Elastic IP): same CA, a new server certificate for the new names', async () => {
    const sb = await createSandbox();
    expectSuccess(runInstall(sb));
    const ca = read(tls(sb, 'ca.crt'));
    const server = read(tls(sb, 'server.crt'));
    fs.writeFileSync(path.join(sb.state, 'public-hostname'), 'ec2-198-51-100-7.eu-west-2.compute.amazonaws.com\n');
    const run = runInstall(sb, { MINNOW_ADVERTISED_HOST: '198.51.100.7' });
    expectSuccess(run);
    expect(read(tls(sb, 'ca.crt'))).toBe(ca);
    expect(read(tls(sb, 'server.crt'))).not.toBe(server);
    expect(verify(sb)).toBe(`${tls(sb, 'server.crt')}: OK`);
    expect(certText(tls(sb, 'server.crt'))).toContain(
      'DNS:ec2-198-51-100-7.eu-west-2.compute.amazonaws.com, IP Address:198.51.100.7',
    );
    expect(named(run, 'systemctl')).toContain('systemctl restart minnow.service');
  });

  test('a server certificate expiring within 30 days is reissued by the same CA', async () => {
    const sb = await createSandbox();
    expectSuccess(runInstall(sb, { MINNOW_CERT_DAYS: '10' }));
    const ca = read(tls(sb, 'ca.crt'));
    const server = read(tls(sb, 'server.crt'));
    const run = runInstall(sb);
    expectSuccess(run);
    expect(run.stderr).toContain('issuing the server certificate');
    expect(read(tls(sb, 'server.crt'))).not.toBe(server);
    expect(read(tls(sb, 'ca.crt'))).toBe(ca);
  });

  test('before the Elastic IP is associated (the boot signals first): its DNS name is made from the launch-time one', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'public-hostname'), 'ec2-3-8-1-2.eu-west-2.compute.amazonaws.com\n');
    expectSuccess(runInstall(sb));
    const text = certText(tls(sb, 'server.crt'));
    expect(text).not.toContain('ec2-3-8-1-2');
    expect(text).toContain('DNS:ec2-203-0-113-99.eu-west-2.compute.amazonaws.com, IP Address:203.0.113.99');
    expect(read(path.join(sb.root, 'etc', 'minnow', 'minnow.env'))).toContain(
      `ADVERTISED_LISTENER_URL=sasl+tls://ec2-203-0-113-99.eu-west-2.compute.amazonaws.com:9093,tcp://127.0.0.1:${sb.loopbackPort}\n`,
    );
    // Once associated, IMDS gives that very name: the certificate stays.
    const server = read(tls(sb, 'server.crt'));
    fs.rmSync(path.join(sb.state, 'public-hostname'));
    const run = runInstall(sb);
    expectSuccess(run);
    expect(run.stderr).not.toContain('issuing the server certificate');
    expect(read(tls(sb, 'server.crt'))).toBe(server);
  });

  test('no public DNS name (a VPC without DNS hostnames): the IP is advertised', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'no-public-hostname'), '');
    expectSuccess(runInstall(sb));
    const text = certText(tls(sb, 'server.crt'));
    expect(text).not.toContain('DNS:ec2-');
    expect(text).toContain('Subject: CN = 203.0.113.99');
    expect(read(path.join(sb.root, 'etc', 'minnow', 'minnow.env'))).toContain(
      `ADVERTISED_LISTENER_URL=sasl+tls://203.0.113.99:9093,tcp://127.0.0.1:${sb.loopbackPort}\n`,
    );
  });

  test('an empty secret stops the install before the broker is (re)started', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'admin-secret'), '');
    const run = runInstall(sb);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('is empty: cannot give the broker an admin password');
    expect(named(run, 'systemctl').filter((c) => /start|enable/.test(c))).toEqual([]);
  });

  test('refuses security on without the parameter and the secret', async () => {
    const sb = await createSandbox();
    const run = runInstall(sb, { MINNOW_ADMIN_SECRET_ID: '' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('MINNOW_ADMIN_SECRET_ID is not set');
    expect(run.calls).toEqual([]);
    const bogus = runInstall(sb, { MINNOW_SECURITY: 'maybe' });
    expect(bogus.stderr).toContain('MINNOW_SECURITY=maybe must be on or off');
  });

  test('security off: the old plaintext broker on 9092, no certificate, no AWS secret, no credential', async () => {
    const sb = await createSandbox();
    // The sandbox passes a free port for MINNOW_PORT (its health probe needs one); the default is 9092.
    expect(read(INSTALL_SH)).toContain('off) port=${MINNOW_PORT:-9092}');
    const run = runInstall(sb, { MINNOW_SECURITY: 'off' });
    const port = sb.plainPort;
    expectSuccess(run);
    expect(read(path.join(sb.root, 'etc', 'minnow', 'minnow.env'))).toBe(
      [
        `LISTENER_URL=tcp://0.0.0.0:${port}`,
        `ADVERTISED_LISTENER_URL=tcp://203.0.113.99:${port}`,
        `STORAGE_ENGINE=sqlite://${sb.root}/data/minnow.db`,
        'LOG_LEVEL=info',
        'MINNOW_METRICS_LISTENER=127.0.0.1:9464',
        '',
      ].join('\n'),
    );
    expect(fs.existsSync(path.join(sb.root, 'data', 'tls'))).toBe(false);
    expect(named(run, 'aws').filter((c) => /ssm|secretsmanager/.test(c))).toEqual([]);
    expect(fs.existsSync(path.join(sb.root, 'etc', 'systemd', 'system', 'minnow.service.d'))).toBe(false);
  });

  test('turning security off removes the credential drop-in and the password file', async () => {
    const sb = await createSandbox();
    expectSuccess(runInstall(sb));
    const dropin = path.join(sb.root, 'etc', 'systemd', 'system', 'minnow.service.d', 'security.conf');
    expect(fs.existsSync(dropin)).toBe(true);
    const run = runInstall(sb, { MINNOW_SECURITY: 'off' });
    expectSuccess(run);
    expect(fs.existsSync(dropin)).toBe(false);
    expect(fs.existsSync(path.join(sb.root, 'etc', 'minnow', 'admin-password'))).toBe(false);
    expect(named(run, 'systemctl')).toContain('systemctl restart minnow.service');
  });
});

// Issue 28, item 5: after a restore into a new stack, the restored database's admin credential and
// the new stack's secret disagreed, so `ops password` printed a password the broker refused.
describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('install.sh with security on: the secret is the source of truth for admin', () => {
  const OLD_PASSWORD = 'the-password-of-the-stack-the-snapshot-came-from';
  const OLD_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:SecurityAdminPassword-OlDsTk';
  const db = (sb: Sandbox) => path.join(sb.root, 'data', 'minnow.db');
  const mark = (sb: Sandbox) => tls(sb, 'admin-secret-id');

  /** The broker's own database, with `admin` stored for `password` as the broker stores it. */
  async function brokerDatabaseWithAdmin(sb: Sandbox, password: string): Promise<void> {
    const storage = openSyncStorage(`sqlite://${db(sb)}`);
    try {
      const creds = [];
      for (const mechanism of SCRAM_MECHANISM_NAMES)
        creds.push({ user: 'admin', mechanism, ...(await credentialFromPassword(mechanism, password)) });
      storage.alterScramCredentials(creds, []);
    } finally {
      storage.close();
    }
  }

  /** Which of the two passwords each stored mechanism of admin accepts. */
  async function adminAccepts(sb: Sandbox): Promise<string[]> {
    const storage = openSyncStorage(`sqlite://${db(sb)}`);
    try {
      const accepted: string[] = [];
      for (const mechanism of SCRAM_MECHANISM_NAMES) {
        const credential = storage.scramCredential('admin', mechanism);
        if (!credential) continue;
        for (const [name, password] of [
          ['secret', ADMIN_PASSWORD],
          ['old', OLD_PASSWORD],
        ])
          if (await passwordMatches(mechanism, credential, password!)) accepted.push(`${mechanism}: ${name}`);
      }
      return accepted;
    } finally {
      storage.close();
    }
  }

  test('a volume restored from another stack: reset from the secret, said so, and only once', async () => {
    const sb = await createSandbox();
    const first = runInstall(sb);
    expectSuccess(first); // no database yet: nothing to check, the broker creates admin at start
    expect(first.stderr).not.toContain('admin password reset');
    expect(read(mark(sb))).toBe(`${ADMIN_SECRET_ARN}\n`);

    // The volume as the old stack left it: its admin, its secret named on the volume.
    await brokerDatabaseWithAdmin(sb, OLD_PASSWORD);
    fs.writeFileSync(mark(sb), `${OLD_SECRET_ARN}\n`);
    replaceInstance(sb);
    const restored = runInstall(sb);
    expectSuccess(restored);
    expect(restored.stderr).toContain(
      `admin password reset from the stack's secret: the data volume came from another stack (whose secret was ${OLD_SECRET_ARN})`,
    );
    expect(await adminAccepts(sb)).toEqual(['SCRAM-SHA-256: secret', 'SCRAM-SHA-512: secret']);
    expect(read(mark(sb))).toBe(`${ADMIN_SECRET_ARN}\n`);

    const again = runInstall(sb);
    expectSuccess(again);
    expect(again.stderr).not.toContain('admin password reset');
    expect(await adminAccepts(sb)).toEqual(['SCRAM-SHA-256: secret', 'SCRAM-SHA-512: secret']);
  });

  test('a password changed with Kafka tools but not in the secret: the secret wins, with the likely causes', async () => {
    const sb = await createSandbox();
    expectSuccess(runInstall(sb));
    await brokerDatabaseWithAdmin(sb, OLD_PASSWORD);
    const run = runInstall(sb);
    expectSuccess(run);
    expect(run.stderr).toContain(
      `admin password reset from the stack's secret ${ADMIN_SECRET_ARN}: the broker's credential refused it ` +
        '(a data volume from another stack, or a password changed with Kafka tools but not in the secret)',
    );
    expect(await adminAccepts(sb)).toEqual(['SCRAM-SHA-256: secret', 'SCRAM-SHA-512: secret']);
  });

  test('a database without admin is left alone: the broker creates admin from the password file', async () => {
    const sb = await createSandbox();
    openSyncStorage(`sqlite://${db(sb)}`).close();
    const run = runInstall(sb);
    expectSuccess(run);
    expect(run.stderr).not.toContain('admin password reset');
    const storage = openSyncStorage(`sqlite://${db(sb)}`);
    try {
      expect(storage.scramCredentials()).toEqual([]);
    } finally {
      storage.close();
    }
  });
});
