import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, buildApp } from './synth';
import { kitTempDir } from './temp-dirs';

export const INSTALL_SH = path.join(REPO_ROOT, 'broker', 'deploy', 'install.sh');
export const VOLUME_ID = 'vol-0123456789abcdef0';
export const INSTANCE_ID = 'i-0123456789abcdef0';
export const REGION = 'eu-west-2';
export const FS_UUID = '5d3c6a1e-0000-4000-8000-000000000001';
export const CA_PARAMETER = 'CFN-SecurityCaCertificate07D29BFE-AbCdEf';
export const ADMIN_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:SecurityAdminPassword-AbCdEf';
/** What the secret stub returns unless state/admin-secret says otherwise. */
export const ADMIN_PASSWORD = 'Zr8kq2mW7xYbStubPassword0123456';
/** The public DNS name AWS gives the stub's Elastic IP 203.0.113.99. */
export const PUBLIC_DNS = 'ec2-203-0-113-99.eu-west-2.compute.amazonaws.com';

/**
 * A throwaway machine for broker/deploy/install.sh: ROOT is a temp dir, and stub executables first
 * on PATH stand in for dnf, rpm, curl (IMDS), aws (EC2, S3, SSM, Secrets Manager), id/useradd,
 * blkid/mkfs.xfs/mount/mountpoint, xfs_growfs, chown, systemctl, npm-22 and amazon-cloudwatch-agent-ctl;
 * openssl runs for real. Failures on demand: state/agent-broken, credit-denied, credit-unsuccessful.
 * State the stubs keep: public-ip, public-hostname (IMDS), ssm-ca (the CA parameter's value),
 * admin-secret (the secret's value), formatted/mounted/packages/user-minnow, attach-failures (VolumeInUse
 * answers), attach-error (stderr of a refused attach), attach-dropped (attach accepted, no device),
 * volume-state (what describe-volumes prints). Each stub appends its argv to calls.log; the few that
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
}

const STUBS: Record<string, string> = {
  // Installed packages: state/packages (removed to model a new root disk) and one pkg-<name> each.
  dnf: `for a in "$@"; do case $a in -* | install) ;; *) touch "$STUB_STATE/pkg-$a" ;; esac; done
touch "$STUB_STATE/packages"`,
  rpm: `[ -e "$STUB_STATE/packages" ] || exit 1
for a in "$@"; do case $a in -*) ;; *) [ -e "$STUB_STATE/pkg-$a" ] || exit 1 ;; esac; done`,
  curl: `case "$*" in
  *api/token*) echo token-123 ;;
  *meta-data/instance-id) echo ${INSTANCE_ID} ;;
  *meta-data/placement/region) echo ${REGION} ;;
  *meta-data/public-ipv4) cat "$STUB_STATE/public-ip" 2>/dev/null || echo 203.0.113.99 ;;
  *meta-data/public-hostname) cat "$STUB_STATE/public-hostname" 2>/dev/null || echo ${PUBLIC_DNS} ;;
  *) echo "curl stub: unexpected $*" >&2; exit 22 ;;
esac`,
  aws: `case "$*" in
  *"ec2 attach-volume"*)
    n=$(cat "$STUB_STATE/attach-failures" 2>/dev/null || echo 0)
    if [ "$n" -gt 0 ]; then echo $((n - 1)) >"$STUB_STATE/attach-failures"; echo "An error occurred (VolumeInUse)" >&2; exit 254; fi
    if [ -e "$STUB_STATE/attach-error" ]; then cat "$STUB_STATE/attach-error" >&2; exit 254; fi
    [ ! -e "$STUB_STATE/attach-dropped" ] || exit 0
    vol=$(echo "$*" | sed -n 's/.*--volume-id \\([^ ]*\\).*/\\1/p')
    mkdir -p "$ROOT/dev/disk/by-id"
    touch "$ROOT/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_$(echo "$vol" | tr -d -)" ;;
  *"ec2 describe-volumes"*) cat "$STUB_STATE/volume-state" 2>/dev/null || echo in-use ;;
  *"s3 cp"*)
    dest=""; for a in "$@"; do dest=$a; done
    cp "$STUB_ASSET_ZIP" "$dest" ;;
  *"ssm get-parameter --name ${CA_PARAMETER} "*)
    cat "$STUB_STATE/ssm-ca" 2>/dev/null || echo "pending: the instance publishes its CA certificate here" ;;
  *"ssm put-parameter --name ${CA_PARAMETER} "*)
    prev=""; for a in "$@"; do if [ "$prev" = --value ]; then cp "\${a#file://}" "$STUB_STATE/ssm-ca"; fi; prev=$a; done ;;
  *"secretsmanager get-secret-value --secret-id ${ADMIN_SECRET_ARN} "*)
    cat "$STUB_STATE/admin-secret" 2>/dev/null || echo ${ADMIN_PASSWORD} ;;
  *"ec2 modify-instance-credit-specification "*)
    [ ! -e "$STUB_STATE/credit-denied" ] || { echo "An error occurred (UnauthorizedOperation)" >&2; exit 254; }
    cat "$STUB_STATE/credit-unsuccessful" 2>/dev/null || echo None ;;
  *) echo "aws stub: unexpected $*" >&2; exit 2 ;;
esac`,
  id: '[ -e "$STUB_STATE/user-minnow" ]',
  useradd: 'touch "$STUB_STATE/user-minnow"',
  blkid: `case "$*" in
  *TYPE*) if [ -e "$STUB_STATE/formatted" ]; then echo xfs; else exit 2; fi ;;
  *UUID*) echo ${FS_UUID} ;;
esac`,
  'mkfs.xfs': 'touch "$STUB_STATE/formatted"',
  mountpoint: '[ -e "$STUB_STATE/mounted" ]',
  mount: 'touch "$STUB_STATE/mounted"',
  xfs_growfs: 'true',
  chown: 'true',
  systemctl: 'true',
  // The CloudWatch agent's control script (deploy/observe.sh): fetch-config validates the JSON.
  'amazon-cloudwatch-agent-ctl': `[ ! -e "$STUB_STATE/agent-broken" ] || exit 1`,
  // npm ci for real would rebuild native modules from the registry; link the repository's installed
  // node_modules instead (the workspaces root holds the broker's dependencies), which is what
  // `npm ci --omit=dev` produces plus dev and kit dependencies.
  'npm-22': `n=$(cat "$STUB_STATE/npm-failures" 2>/dev/null || echo 0)
if [ "$n" -gt 0 ]; then echo $((n - 1)) >"$STUB_STATE/npm-failures"; echo "npm stub: gyp ERR!" >&2; exit 1; fi
ln -sfn "${path.join(REPO_ROOT, 'node_modules')}" node_modules`,
};

let asset: { zip: string; releaseId: string } | undefined;

/** Synthesizes the stack once per test file, staging the broker asset as `cdk deploy` would, and zips it. */
function brokerAsset(): { zip: string; releaseId: string } {
  if (asset) return asset;
  const { app, outdir } = buildApp();
  app.synth();
  const assetDir = fs.readdirSync(outdir).find((d) => d.startsWith('asset.'));
  if (!assetDir) throw new Error(`no staged asset in ${outdir}`);
  const releaseId = assetDir.replace(/^asset\./, '');
  const zip = path.join(outdir, `${releaseId}.zip`);
  execFileSync('zip', ['-qr', zip, '.'], { cwd: path.join(outdir, assetDir) });
  asset = { zip, releaseId };
  return asset;
}

export function createSandbox(): Sandbox {
  const dir = kitTempDir('minnow-install-');
  const root = path.join(dir, 'root');
  const stubs = path.join(dir, 'stubs');
  const state = path.join(dir, 'state');
  for (const d of [root, stubs, state]) fs.mkdirSync(d, { recursive: true });
  const { zip: assetZip, releaseId } = brokerAsset();

  for (const [name, body] of Object.entries(STUBS)) {
    const file = path.join(stubs, name);
    fs.writeFileSync(file, `#!/bin/bash\necho "${name} $*" >>"$STUB_LOG"\n${body}\n`, { mode: 0o755 });
  }
  return {
    dir,
    root,
    stubs,
    state,
    callsLog: path.join(dir, 'calls.log'),
    assetZip,
    assetUrl: `s3://cdk-hnb659fds-assets-123456789012-${REGION}/${releaseId}.zip`,
    releaseId,
  };
}

export interface InstallRun {
  readonly status: number | null;
  readonly stderr: string;
  /** The stub calls of this run, one "command args..." per entry. */
  readonly calls: string[];
}

/** Runs install.sh once against the sandbox; `env` adds or overrides settings. */
export function runInstall(sb: Sandbox, env: Record<string, string> = {}): InstallRun {
  fs.writeFileSync(sb.callsLog, '');
  const result = spawnSync('bash', [INSTALL_SH], {
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
      ...env,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const calls = fs.readFileSync(sb.callsLog, 'utf8').split('\n').filter(Boolean);
  return { status: result.status, stderr: result.stderr, calls };
}
