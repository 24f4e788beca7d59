import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CA_SECRET_ARN,
  DATABASE_PASSWORD,
  DATABASE_SECRET_ARN,
  INSTALL_SH,
  createSandbox,
  expectSuccess,
  named,
  runInstall,
  type InstallRun,
  type Sandbox,
} from './helpers/install-sandbox';
import { REPO_ROOT } from './helpers/synth';
import { describeWithTools, itWithTools } from '../broker/test/support/external-tools';

// storage=postgres (lib/postgres-stack.ts): the same install.sh, with MINNOW_DATABASE_SECRET_ID,
// MINNOW_NODE_ID and MINNOW_CA_SECRET_ID in its settings. The release's deploy/postgres.sh turns
// the RDS secret into STORAGE_ENGINE, deploy/shared-ca.sh gives every broker broker 1's CA.

const DEPLOY = path.join(REPO_ROOT, 'broker', 'deploy');
const envFile = (sb: Sandbox) => path.join(sb.root, 'etc', 'minnow', 'minnow.env');
const tls = (sb: Sandbox, file: string) => path.join(sb.root, 'data', 'tls', file);
const read = (file: string) => fs.readFileSync(file, 'utf8');
const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);
const cluster = (nodeId: number, env: Record<string, string> = {}) => ({
  MINNOW_DATABASE_SECRET_ID: DATABASE_SECRET_ARN,
  MINNOW_CA_SECRET_ID: CA_SECRET_ARN,
  MINNOW_NODE_ID: String(nodeId),
  ...env,
});
const secretPuts = (run: InstallRun) => named(run, 'aws').filter((c) => c.includes('put-secret-value'));

function openssl(...args: string[]): string {
  const result = spawnSync('openssl', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

itWithTools('shellcheck')('postgres.sh and shared-ca.sh are shellcheck clean', () => {
  const result = spawnSync(
    'shellcheck',
    ['--severity=style', ...['postgres.sh', 'shared-ca.sh'].map((f) => path.join(DEPLOY, f))],
    { encoding: 'utf8' },
  );
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('install.sh on a cluster: broker 1, then broker 2 in another sandbox', () => {
  let one: Sandbox;
  let two: Sandbox;
  let first: InstallRun;
  let again: InstallRun;
  let second: InstallRun;
  beforeAll(async () => {
    one = await createSandbox();
    first = runInstall(one, cluster(1));
    again = runInstall(one, cluster(1));
    two = await createSandbox();
    // Broker 2 reads the secret broker 1 wrote (the stub keeps it in state/shared-ca).
    fs.copyFileSync(path.join(one.state, 'shared-ca'), path.join(two.state, 'shared-ca'));
    second = runInstall(two, cluster(2));
  });

  test('all runs succeed', () => {
    expectSuccess(first);
    expectSuccess(again);
    expectSuccess(second);
  });

  test('STORAGE_ENGINE is the RDS URL with the password percent-encoded, TLS verified against the RDS CA', () => {
    const env = read(envFile(one));
    const url = /^STORAGE_ENGINE=(.*)$/m.exec(env)?.[1] ?? '';
    const parsed = new URL(url);
    expect(parsed.protocol).toBe('postgres:');
    expect(parsed.username).toBe('minnow');
    expect(decodeURIComponent(parsed.password)).toBe(DATABASE_PASSWORD);
    expect(parsed.host).toBe('minnow-db.abcdefghijkl.eu-west-2.rds.amazonaws.com:5432');
    expect(parsed.pathname).toBe('/minnow');
    expect(parsed.searchParams.get('sslmode')).toBe('verify-full');
    const caFile = path.join(one.root, 'etc', 'minnow', 'rds-ca.pem');
    expect(parsed.searchParams.get('sslrootcert')).toBe(caFile);
    expect(read(caFile)).toContain('BEGIN CERTIFICATE');
    expect(mode(caFile)).toBe('644');
    expect(named(first, 'curl')).toContainEqual(
      expect.stringContaining('https://truststore.pki.rds.amazonaws.com/eu-west-2/eu-west-2-bundle.pem'),
    );
  });

  test('the environment file is root-only (0600), has NODE_ID, and no SQLite path', () => {
    expect(mode(envFile(one))).toBe('600');
    expect(read(envFile(one))).toMatch(/^NODE_ID=1$/m);
    expect(read(envFile(two))).toMatch(/^NODE_ID=2$/m);
    expect(read(envFile(one))).not.toContain('sqlite://');
  });

  test('the password is in no command line and no log line', () => {
    for (const run of [first, again, second]) {
      expect(run.calls.join('\n')).not.toContain(DATABASE_PASSWORD);
      expect(run.calls.join('\n')).not.toContain(encodeURIComponent(DATABASE_PASSWORD));
      expect(run.stderr).not.toContain(DATABASE_PASSWORD);
      expect(run.stderr).not.toContain(encodeURIComponent(DATABASE_PASSWORD));
    }
  });

  test('broker 1 shares its CA once; broker 2 installs it and issues its certificate from it', () => {
    expect(secretPuts(first)).toHaveLength(1);
    expect(secretPuts(again)).toEqual([]);
    expect(secretPuts(second)).toEqual([]);
    expect(read(tls(two, 'ca.crt'))).toBe(read(tls(one, 'ca.crt')));
    expect(read(path.join(two.root, 'data', 'tls', 'ca', 'ca.key'))).toBe(
      read(path.join(one.root, 'data', 'tls', 'ca', 'ca.key')),
    );
    // Each broker's server certificate verifies against the one CA clients trust.
    for (const sb of [one, two]) {
      expect(openssl('verify', '-CAfile', tls(one, 'ca.crt'), tls(sb, 'server.crt'))).toBe(
        `${tls(sb, 'server.crt')}: OK`,
      );
    }
    expect(mode(path.join(two.root, 'data', 'tls', 'ca', 'ca.key'))).toBe('600');
    // The file it was shared from does not linger.
    expect(fs.existsSync(path.join(one.root, 'data', 'tls', 'ca', 'shared.pem'))).toBe(false);
  });

  test('the second run on broker 1 changes nothing (idempotent)', () => {
    expect(again.stderr).not.toContain('writing');
    expect(again.stderr).not.toContain('installing the shared CA');
  });
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('install.sh on a cluster: what fails, and how', () => {
  test('broker 2 before broker 1 has shared the CA: waits, then fails saying why', async () => {
    const sb = await createSandbox();
    const run = runInstall(sb, cluster(2, { MINNOW_CA_WAIT_S: '0' }));
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`the shared CA (secret ${CA_SECRET_ARN}) is still pending`);
  });

  test('a broker whose own CA differs takes the shared one and reissues its certificate', async () => {
    const one = await createSandbox();
    expectSuccess(runInstall(one, cluster(1)));
    const two = await createSandbox();
    // Broker 2 booted once on its own CA (e.g. security on before the cluster): then joins.
    expectSuccess(runInstall(two, { MINNOW_NODE_ID: '2', MINNOW_DATABASE_SECRET_ID: DATABASE_SECRET_ARN }));
    const ownCa = read(tls(two, 'ca.crt'));
    fs.copyFileSync(path.join(one.state, 'shared-ca'), path.join(two.state, 'shared-ca'));
    const run = runInstall(two, cluster(2));
    expectSuccess(run);
    expect(run.stderr).toContain('installing the shared CA');
    expect(read(tls(two, 'ca.crt'))).not.toBe(ownCa);
    expect(openssl('verify', '-CAfile', tls(one, 'ca.crt'), tls(two, 'server.crt'))).toBe(
      `${tls(two, 'server.crt')}: OK`,
    );
  });

  test('a secret that is not the RDS JSON fails the boot without echoing it', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'database-secret'), 'not-json-s3cr3t\n');
    const run = runInstall(sb, cluster(1));
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`cannot read the database secret ${DATABASE_SECRET_ARN}`);
    expect(run.stderr).not.toContain('s3cr3t');
  });

  test('no RDS CA bundle and none kept: the boot fails; with one kept, it goes on', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'rds-ca-down'), '');
    const failed = runInstall(sb, cluster(1));
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain('could not download the RDS CA bundle');
    fs.rmSync(path.join(sb.state, 'rds-ca-down'));
    expectSuccess(runInstall(sb, cluster(1)));
    fs.writeFileSync(path.join(sb.state, 'rds-ca-down'), '');
    const kept = runInstall(sb, cluster(1));
    expectSuccess(kept);
    expect(kept.stderr).toContain('keeping');
  });

  test('security=off: plaintext, but the same database URL and node id', async () => {
    const sb = await createSandbox();
    const run = runInstall(sb, {
      MINNOW_SECURITY: 'off',
      MINNOW_DATABASE_SECRET_ID: DATABASE_SECRET_ARN,
      MINNOW_NODE_ID: '3',
    });
    expectSuccess(run);
    const env = read(envFile(sb));
    expect(env).toMatch(/^STORAGE_ENGINE=postgres:\/\/minnow:/m);
    expect(env).toMatch(/^NODE_ID=3$/m);
    expect(mode(envFile(sb))).toBe('600');
    expect(named(run, 'aws').filter((c) => c.includes(CA_SECRET_ARN))).toEqual([]);
  });

  test('without MINNOW_NODE_ID a cluster broker refuses to start', async () => {
    const sb = await createSandbox();
    const run = runInstall(sb, { MINNOW_DATABASE_SECRET_ID: DATABASE_SECRET_ARN });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('MINNOW_NODE_ID is not set');
  });

  test('install.sh itself is the single-instance one (the release carries the cluster steps)', () => {
    expect(read(INSTALL_SH)).not.toContain('DATABASE');
  });
});
