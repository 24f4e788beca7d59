import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { BrokerAsset } from '../../lib/constructs/broker-asset';
import { runCachedDir } from './run-cache';
import { REPO_ROOT } from './synth';
import { beforeKitTempDirsGo, kitTempDir } from './temp-dirs';

export const INSTALL_SH = path.join(REPO_ROOT, 'broker', 'deploy', 'install.sh');
export {
  VOLUME_ID,
  INSTANCE_ID,
  REGION,
  FS_UUID,
  CA_PARAMETER,
  ADMIN_SECRET_ARN,
  ADMIN_PASSWORD,
  PUBLIC_DNS,
  DATABASE_SECRET_ARN,
  CA_SECRET_ARN,
  DATABASE_PASSWORD,
  DATABASE_SECRET_JSON,
  MINNOW_ID,
  SIGNAL_URL,
} from './install-stubs';
import { ADMIN_SECRET_ARN, CA_PARAMETER, FAKE_BROKER, REGION, SIGNAL_URL, STUBS, VOLUME_ID } from './install-stubs';

/**
 * A throwaway machine for broker/deploy/install.sh: ROOT is a temp dir, and stub executables first
 * on PATH stand in for dnf, rpm, curl (IMDS), aws (EC2, S3, SSM, Secrets Manager), id/useradd,
 * blkid/mkfs.xfs/mount/mountpoint, xfs_growfs, chown, systemctl, npm-22 and amazon-cloudwatch-agent-ctl;
 * openssl runs for real. Failures on demand: state/agent-broken, credit-denied, credit-unsuccessful.
 * State the stubs keep: public-hostname and no-public-hostname (IMDS), ssm-ca (the CA parameter's value),
 * admin-secret (the secret's value), formatted/mounted/packages/user-minnow, attach-failures (VolumeInUse
 * answers), attach-error (stderr of a refused attach), attach-dropped (attach accepted, volume stays
 * available), attach-no-device (attached, no device shows up), xen (the device is /dev/xvdf), the
 * EC2 volume and instances (see the aws stub), signals (what the boot
 * sent to the wait condition), broker-down and broken-releases (the fake broker does not start), hangups
 * (one line per SIGHUP the fake broker got: systemctl reload). Each stub appends its argv to calls.log; the few that
 * change machine state keep it as files in state/, so a second run sees what the first one did.
 * Nothing touches the real /etc, /dev or the network (curl never runs for real).
 */
export interface Sandbox {
  readonly dir: string;
  readonly root: string;
  readonly stubs: string;
  readonly state: string;
  readonly callsLog: string;
  readonly assetZip: string;
  readonly assetUrl: string;
  readonly releaseId: string;
  /** The plaintext port the probe checks: loopback with security, the public one without. */
  readonly loopbackPort: number;
  readonly plainPort: number;
}

/**
 * Free TCP ports on 127.0.0.1, distinct: `count` servers bound to port 0 at once, then closed. In
 * this process (a child process to find them synchronously cost ~70 ms of CPU per sandbox).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => net.createServer());
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

let asset: { zip: string; releaseId: string } | undefined;

/**
 * Stages the broker asset as `cdk deploy` would and zips it, once per jest run (test/helpers/
 * run-cache.ts; once per test file without it). An app holding only the asset: its hash, the release
 * id, depends on the staged files alone, and synthesizing the whole stack for it took ~6 s of CPU.
 */
function brokerAsset(): { zip: string; releaseId: string } {
  if (asset) return asset;
  const { dir, value: releaseId } = runCachedDir(
    'broker asset zip',
    () => kitTempDir('minnow-asset-'),
    (into) => {
      const outdir = kitTempDir('minnow-cdk-');
      // No template validation: this stack holds no resource, so it could only warn that (F0001),
      // and loading the validator costs ~4 s of CPU in a worker that synthesizes nothing else.
      const app = new App({ outdir, analyticsReporting: false, builtinCloudFormationValidation: false });
      new BrokerAsset(new Stack(app, 'MinnowBroker'), 'Broker');
      app.synth();
      const assetDir = fs.readdirSync(outdir).find((d) => d.startsWith('asset.'));
      if (!assetDir) throw new Error(`no staged asset in ${outdir}`);
      const id = assetDir.replace(/^asset\./, '');
      execFileSync('zip', ['-qr', path.join(into, `${id}.zip`), '.'], { cwd: path.join(outdir, assetDir) });
      return id;
    },
  );
  asset = { zip: path.join(dir, `${releaseId}.zip`), releaseId };
  return asset;
}

export async function createSandbox(): Promise<Sandbox> {
  const dir = kitTempDir('minnow-install-');
  const root = path.join(dir, 'root');
  const stubs = path.join(dir, 'stubs');
  const state = path.join(dir, 'state');
  for (const d of [root, stubs, state]) fs.mkdirSync(d, { recursive: true });
  const { zip: assetZip, releaseId } = brokerAsset();
  const [loopbackPort, plainPort] = (await freePorts(2)) as [number, number];

  for (const [name, body] of Object.entries(STUBS)) {
    const file = path.join(stubs, name);
    fs.writeFileSync(file, `#!/bin/bash\necho "${name} $*" >>"$STUB_LOG"\n${body}\n`, { mode: 0o755 });
  }
  fs.writeFileSync(path.join(stubs, 'fake-broker.js'), FAKE_BROKER);
  sandboxes.push(state);
  return {
    dir,
    root,
    stubs,
    state,
    callsLog: path.join(dir, 'calls.log'),
    assetZip,
    assetUrl: `s3://cdk-hnb659fds-assets-123456789012-${REGION}/${releaseId}.zip`,
    releaseId,
    loopbackPort,
    plainPort,
  };
}

const sandboxes: string[] = [];

/** Stops the fake broker of one sandbox, e.g. to start the real one on its port. */
export function stopSandboxBroker(sb: Sandbox): void {
  try {
    process.kill(Number(fs.readFileSync(path.join(sb.state, 'broker.pid'), 'utf8')), 'SIGTERM');
  } catch {
    // none running
  }
}

/**
 * Stops the fake brokers the systemctl stub started: when the file's temp dirs go, before their pid
 * files do (an afterAll here ran after that, and each broker lived on until its own 60 s end).
 */
export function stopSandboxBrokers(): void {
  for (const state of sandboxes.splice(0)) {
    try {
      process.kill(Number(fs.readFileSync(path.join(state, 'broker.pid'), 'utf8')), 'SIGTERM');
    } catch {
      // none running
    }
  }
}
beforeKitTempDirsGo(stopSandboxBrokers);

/** The signals the boot sent to the wait condition handle, parsed. */
export function signals(sb: Sandbox): { Status: string; Reason: string; UniqueId: string; Data: string }[] {
  const file = path.join(sb.state, 'signals');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { Status: string; Reason: string; UniqueId: string; Data: string });
}

export interface InstallRun {
  readonly status: number | null;
  readonly stderr: string;
  /** The stub calls of this run, one "command args..." per entry. */
  readonly calls: string[];
}

/** Runs install.sh once against the sandbox; `env` adds or overrides settings. */
export function runInstall(sb: Sandbox, env: Record<string, string> = {}, script = INSTALL_SH): InstallRun {
  fs.writeFileSync(sb.callsLog, '');
  const result = spawnSync('bash', [script], {
    env: {
      PATH: `${sb.stubs}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: sb.dir,
      ROOT: sb.root,
      STUB_LOG: sb.callsLog,
      STUB_STATE: sb.state,
      STUB_ASSET_ZIP: sb.assetZip,
      MINNOW_ASSET_URL: sb.assetUrl,
      MINNOW_ADVERTISED_HOST: '203.0.113.99',
      MINNOW_DATA_VOLUME_ID: VOLUME_ID,
      MINNOW_CA_PARAMETER: CA_PARAMETER,
      MINNOW_ADMIN_SECRET_ID: ADMIN_SECRET_ARN,
      MINNOW_NODE: process.execPath,
      MINNOW_POLL_S: '0',
      MINNOW_SIGNAL_URL: SIGNAL_URL,
      MINNOW_LOOPBACK_PORT: String(sb.loopbackPort),
      MINNOW_HEALTH_TIMEOUT_S: '10',
      ...(env.MINNOW_SECURITY === 'off' && { MINNOW_PORT: String(sb.plainPort) }),
      ...env,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const calls = fs.readFileSync(sb.callsLog, 'utf8').split('\n').filter(Boolean);
  return { status: result.status, stderr: result.stderr, calls };
}

/** Asserts exit 0, showing the script's stderr and the stub calls when not. */
export function expectSuccess(run: InstallRun): void {
  if (run.status !== 0) {
    throw new Error(`install.sh exited ${run.status}\n--- stderr\n${run.stderr}\n--- calls\n${run.calls.join('\n')}`);
  }
}

/** The run's stub calls of one command ("aws", "systemctl", ...). */
export function named(run: InstallRun, command: string): string[] {
  return run.calls.filter((c) => c === command || c.startsWith(`${command} `));
}
