import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeWithTools, itWithTools } from '../broker/test/support/external-tools';
import { REPO_ROOT } from './helpers/synth';
import {
  CA_SECRET_ARN,
  DATABASE_SECRET_ARN,
  PUBLIC_DNS,
  createSandbox,
  expectSuccess,
  named,
  runInstall,
  stopSandboxBroker,
  type InstallRun,
  type Sandbox,
} from './helpers/install-sandbox';

// The daily certificate check (broker/deploy/cert-renewal.sh installs minnow-cert-renew.timer,
// which runs deploy/renew-certificate.sh): the boot renews a certificate that expires within 30
// days, but a broker that is never rebooted would serve an expired one after 825 days. openssl runs
// for real; systemctl is the sandbox's stub, whose reload sends SIGHUP to the fake broker.

const DEPLOY = path.join(REPO_ROOT, 'broker', 'deploy');
const units = (sb: Sandbox) => path.join(sb.root, 'etc', 'systemd', 'system');
const tls = (sb: Sandbox, file: string) => path.join(sb.root, 'data', 'tls', file);
const read = (file: string) => fs.readFileSync(file, 'utf8');

function openssl(...args: string[]): string {
  const result = spawnSync('openssl', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}
const daysLeft = (file: string): number => {
  const end = openssl('x509', '-noout', '-enddate', '-in', file)
    .trim()
    .replace(/^notAfter=/, '');
  return Math.round((Date.parse(end) - Date.now()) / 86_400_000);
};
const sans = (file: string) =>
  /Subject Alternative Name:\s*\n\s*(.*)/.exec(openssl('x509', '-noout', '-text', '-in', file))![1];
const hangups = (sb: Sandbox): number => {
  const file = path.join(sb.state, 'hangups');
  return fs.existsSync(file) ? read(file).split('\n').filter(Boolean).length : 0;
};

/** Replaces the server certificate with one from the same CA and names that expires in `days`. */
function ageCertificate(sb: Sandbox, days: number): void {
  const conf = tls(sb, 'ca/openssl.cnf');
  const csr = tls(sb, 'ca/aged.csr');
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', tls(sb, 'server.key'));
  const subject = openssl('x509', '-noout', '-subject', '-nameopt', 'RFC2253', '-in', tls(sb, 'server.crt'));
  const cn = subject.trim().replace(/^subject=CN=/, '');
  openssl('req', '-new', '-key', tls(sb, 'server.key'), '-config', conf, '-subj', `/CN=${cn}`, '-out', csr);
  openssl(
    'x509', '-req', '-days', String(days), '-in', csr, '-CA', tls(sb, 'ca.crt'), '-CAkey', tls(sb, 'ca/ca.key'),
    '-set_serial', '0x01', '-extfile', conf, '-extensions', 'server_ext', '-out', tls(sb, 'server.crt'),
  ); // prettier-ignore
  fs.rmSync(csr);
}

/** Runs what the timer's service runs: its ExecStart with its Environment, against the sandbox's stubs. */
function runRenewal(sb: Sandbox): InstallRun {
  const unit = read(path.join(units(sb), 'minnow-cert-renew.service'));
  const [command, ...args] = /^ExecStart=(.*)$/m.exec(unit)![1]!.split(' ');
  const environment = Object.fromEntries(
    [...unit.matchAll(/^Environment=([A-Z_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!] as [string, string]),
  );
  fs.writeFileSync(sb.callsLog, '');
  const result = spawnSync(command!, args, {
    env: {
      PATH: `${sb.stubs}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      STUB_LOG: sb.callsLog,
      STUB_STATE: sb.state,
      ROOT: sb.root,
      ...environment,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const calls = read(sb.callsLog).split('\n').filter(Boolean);
  return { status: result.status, stderr: result.stderr, calls };
}

/** The fake broker appends to state/hangups from its signal handler: wait for it, boundedly. */
async function waitForHangups(sb: Sandbox, count: number): Promise<number> {
  for (let i = 0; i < 100 && hangups(sb) < count; i++) await new Promise((r) => setTimeout(r, 50));
  return hangups(sb);
}

itWithTools('shellcheck')('cert-renewal.sh, renew-certificate.sh and server-cert.sh are shellcheck clean', () => {
  const files = ['cert-renewal.sh', 'renew-certificate.sh', 'server-cert.sh'].map((f) => path.join(DEPLOY, f));
  const result = spawnSync('shellcheck', ['--severity=style', '-x', ...files], { encoding: 'utf8', cwd: DEPLOY });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('install.sh with security on: the daily renewal timer', () => {
  let sb: Sandbox;
  let first: InstallRun;
  beforeAll(async () => {
    sb = await createSandbox();
    first = runInstall(sb);
  });

  test('installs the timer and its service, and enables and starts the timer', () => {
    expectSuccess(first);
    const timer = read(path.join(units(sb), 'minnow-cert-renew.timer')).split('\n');
    for (const line of ['OnCalendar=daily', 'Persistent=true', 'WantedBy=timers.target']) expect(timer).toContain(line);
    const service = read(path.join(units(sb), 'minnow-cert-renew.service')).split('\n');
    for (const line of [
      'Type=oneshot',
      'Environment=MINNOW_CERT_DAYS=825',
      `ExecStart=/bin/bash ${sb.root}/opt/minnow/current/deploy/renew-certificate.sh ${sb.root}/data/tls`,
      `RequiresMountsFor=${sb.root}/data`,
      `ReadWritePaths=${sb.root}/data/tls`,
    ]) {
      expect(service).toContain(line);
    }
    const systemctl = named(first, 'systemctl');
    expect(systemctl).toContain('systemctl enable --now minnow-cert-renew.timer');
    // Written before the reload that makes systemd see them.
    expect(systemctl.indexOf('systemctl enable --now minnow-cert-renew.timer')).toBeGreaterThan(
      systemctl.indexOf('systemctl daemon-reload'),
    );
  });

  test('the broker unit reloads with SIGHUP (systemctl reload minnow)', () => {
    expect(read(path.join(units(sb), 'minnow.service')).split('\n')).toContain('ExecReload=/bin/kill -HUP $MAINPID');
  });

  itWithTools('systemd-analyze')('systemd-analyze verify accepts the timer and its service', () => {
    const files = ['minnow-cert-renew.timer', 'minnow-cert-renew.service'].map((f) => path.join(units(sb), f));
    const result = spawnSync('systemd-analyze', ['verify', ...files], { encoding: 'utf8' });
    expect({ status: result.status, output: result.stdout + result.stderr }).toEqual({ status: 0, output: '' });
  });

  test('a fresh certificate: the renewal does nothing and leaves the broker alone', () => {
    const before = ['server.crt', 'server.key'].map((f) => read(tls(sb, f)));
    const run = runRenewal(sb);
    expectSuccess(run);
    expect(run.stderr).toContain('more than 30 days left, nothing to do');
    expect(['server.crt', 'server.key'].map((f) => read(tls(sb, f)))).toEqual(before);
    expect(named(run, 'systemctl')).toEqual([]);
    expect(hangups(sb)).toBe(0);
  });

  test('a certificate that expires in 10 days: replaced from the same CA for the same names, the broker signalled', async () => {
    const names = sans(tls(sb, 'server.crt'));
    ageCertificate(sb, 10);
    const aged = read(tls(sb, 'server.crt'));
    expect(daysLeft(tls(sb, 'server.crt'))).toBe(10);
    const run = runRenewal(sb);
    expectSuccess(run);
    // The boot's subject, the public DNS name, kept.
    expect(run.stderr).toContain(`renewing the server certificate for ${PUBLIC_DNS} (825 days)`);
    expect(read(tls(sb, 'server.crt'))).not.toBe(aged);
    expect(daysLeft(tls(sb, 'server.crt'))).toBe(825);
    expect(openssl('verify', '-CAfile', tls(sb, 'ca.crt'), tls(sb, 'server.crt')).trim()).toBe(
      `${tls(sb, 'server.crt')}: OK`,
    );
    expect(sans(tls(sb, 'server.crt'))).toBe(names);
    // The new key belongs to the new certificate, and to the broker's user only.
    expect(openssl('pkey', '-pubout', '-in', tls(sb, 'server.key'))).toBe(
      openssl('x509', '-noout', '-pubkey', '-in', tls(sb, 'server.crt')),
    );
    expect((fs.statSync(tls(sb, 'server.key')).mode & 0o777).toString(8)).toBe('600');
    expect(named(run, 'chown')).toEqual([`chown minnow:minnow ${tls(sb, 'server.key')}`]);
    expect(named(run, 'systemctl')).toEqual(['systemctl reload minnow.service']);
    expect(await waitForHangups(sb, 1)).toBe(1);
    // Renewed: the next day's check does nothing.
    const again = runRenewal(sb);
    expectSuccess(again);
    expect(named(again, 'systemctl')).toEqual([]);
  });

  test('a broker that is not running: renewed anyway, read when it starts', () => {
    // The stub's stop forgets the pid too (a killed child of the stub may linger as a zombie).
    stopSandboxBroker(sb);
    fs.rmSync(path.join(sb.state, 'broker.pid'));
    ageCertificate(sb, 5);
    const run = runRenewal(sb);
    expectSuccess(run);
    expect(daysLeft(tls(sb, 'server.crt'))).toBe(825);
    expect(run.stderr).toContain('the broker was not reloaded (not running?)');
  });

  test('a second boot rewrites nothing and enables the timer again (idempotent)', () => {
    const run = runInstall(sb);
    expectSuccess(run);
    expect(run.stderr).not.toContain('minnow-cert-renew');
    expect(named(run, 'systemctl')).toContain('systemctl enable --now minnow-cert-renew.timer');
  });

  test('turning security off disables the timer and removes both units', () => {
    const run = runInstall(sb, { MINNOW_SECURITY: 'off' });
    expectSuccess(run);
    expect(named(run, 'systemctl')).toContain('systemctl disable --now minnow-cert-renew.timer');
    for (const unit of ['minnow-cert-renew.timer', 'minnow-cert-renew.service']) {
      expect(fs.existsSync(path.join(units(sb), unit))).toBe(false);
    }
    expect(named(run, 'systemctl')).not.toContain('systemctl enable --now minnow-cert-renew.timer');
  });
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('storage=postgres: the same timer on every broker', () => {
  test("broker 2 renews from the cluster's shared CA, so the one ca.pem clients have still trusts it", async () => {
    const cluster = (nodeId: number) => ({
      MINNOW_DATABASE_SECRET_ID: DATABASE_SECRET_ARN,
      MINNOW_CA_SECRET_ID: CA_SECRET_ARN,
      MINNOW_NODE_ID: String(nodeId),
    });
    const one = await createSandbox();
    expectSuccess(runInstall(one, cluster(1)));
    const two = await createSandbox();
    fs.copyFileSync(path.join(one.state, 'shared-ca'), path.join(two.state, 'shared-ca'));
    const boot = runInstall(two, cluster(2));
    expectSuccess(boot);
    expect(named(boot, 'systemctl')).toContain('systemctl enable --now minnow-cert-renew.timer');
    ageCertificate(two, 10);
    const run = runRenewal(two);
    expectSuccess(run);
    expect(daysLeft(tls(two, 'server.crt'))).toBe(825);
    // Verified against broker 1's CA certificate: the one `npm run ops -- ca` hands out.
    expect(openssl('verify', '-CAfile', tls(one, 'ca.crt'), tls(two, 'server.crt')).trim()).toBe(
      `${tls(two, 'server.crt')}: OK`,
    );
    expect(await waitForHangups(two, 1)).toBe(1);
  });
});
