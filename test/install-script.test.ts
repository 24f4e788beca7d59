import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ADMIN_PASSWORD,
  CA_PARAMETER,
  FS_UUID,
  PUBLIC_DNS,
  INSTALL_SH,
  INSTANCE_ID,
  MINNOW_ID,
  REGION,
  SIGNAL_URL,
  VOLUME_ID,
  createSandbox,
  expectSuccess,
  named,
  runInstall,
  type InstallRun,
  type Sandbox,
} from './helpers/install-sandbox';
import { REPO_ROOT } from './helpers/synth';
import { describeWithTools, itWithTools } from '../broker/test/support/external-tools';

const UNIT_SRC = path.join(REPO_ROOT, 'broker', 'deploy', 'minnow.service');

itWithTools('shellcheck')(
  'install.sh, the scripts it sources, minnow-rollback and bin/build-broker.sh are shellcheck clean',
  () => {
    const result = spawnSync(
      'shellcheck',
      [
        '--severity=style',
        INSTALL_SH,
        ...['security.sh', 'owner.sh', 'configure.sh', 'release.sh', 'rollback.sh', 'take-volume.sh'].map((f) =>
          path.join(REPO_ROOT, 'broker', 'deploy', f),
        ),
        path.join(REPO_ROOT, 'bin', 'build-broker.sh'),
      ],
      {
        encoding: 'utf8',
      },
    );
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  },
);

// The sandbox zips the broker asset (zip) and install.sh unpacks it (unzip).
describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('install.sh on a fresh instance, then again (idempotence)', () => {
  let sb: Sandbox;
  let first: InstallRun;
  let second: InstallRun;
  let device: string;
  beforeAll(async () => {
    sb = await createSandbox();
    device = `${sb.root}/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_${VOLUME_ID.replace('-', '')}`;
    first = runInstall(sb);
    second = runInstall(sb);
  });

  test('both runs succeed', () => {
    expectSuccess(first);
    expectSuccess(second);
  });

  test('first run: Node.js 22 from AL2023, the minnow user, IMDSv2 lookups', () => {
    expect(named(first, 'dnf')).toEqual(['dnf install -y nodejs22 nodejs22-npm unzip openssl']);
    expect(named(first, 'useradd')).toEqual([
      `useradd --system --uid ${MINNOW_ID} --gid minnow --home-dir /var/lib/minnow --no-create-home --shell /sbin/nologin minnow`,
    ]);
    expect(named(first, 'groupadd')).toEqual([`groupadd --system --gid ${MINNOW_ID} minnow`]);
    const curls = named(first, 'curl');
    expect(
      curls.filter((c) => c.includes('-X PUT') && c.includes('X-aws-ec2-metadata-token-ttl-seconds')).length,
    ).toBeGreaterThan(0);
    const imdsCalls = curls.filter((c) => !c.includes(SIGNAL_URL)); // the rest: one signal to CloudFormation
    expect(imdsCalls.every((c) => c.includes('http://169.254.169.254/latest/'))).toBe(true);
    expect(curls.length - imdsCalls.length).toBe(1);
    expect(
      curls.filter((c) => c.includes('meta-data/')).every((c) => c.includes('X-aws-ec2-metadata-token: token-123')),
    ).toBe(true);
  });

  test('first run: attaches its data volume, formats the blank volume, mounts it by UUID with nofail', () => {
    expect(named(first, 'aws').filter((c) => c.includes('attach-volume'))).toEqual([
      `aws --region ${REGION} ec2 attach-volume --volume-id ${VOLUME_ID} --instance-id ${INSTANCE_ID} --device /dev/sdf`,
    ]);
    expect(named(first, 'mkfs.xfs')).toEqual([`mkfs.xfs -L minnow-data ${device}`]);
    expect(fs.readFileSync(path.join(sb.root, 'etc', 'fstab'), 'utf8')).toBe(
      `UUID=${FS_UUID} ${sb.root}/data xfs defaults,nofail,noatime 0 2\n`,
    );
    expect(named(first, 'mount')).toEqual([`mount --fstab ${sb.root}/etc/fstab ${sb.root}/data`]);
    expect(named(first, 'chown')).toEqual([
      `chown -h -c ${MINNOW_ID}:${MINNOW_ID} ${sb.root}/data`,
      `chown root:minnow ${sb.root}/data/tls`,
      `chown minnow:minnow ${sb.root}/data/tls/server.key`,
    ]);
  });

  test('first run: downloads the asset, installs production dependencies from the lock, activates the release', () => {
    const cp = named(first, 'aws').filter((c) => c.includes('s3 cp'));
    expect(cp).toEqual([
      expect.stringMatching(new RegExp(`^aws --region ${REGION} s3 cp --only-show-errors ${sb.assetUrl} `)),
    ]);
    expect(named(first, 'npm-22')).toEqual(['npm-22 ci --omit=dev --no-audit --no-fund']);
    expect(fs.readlinkSync(path.join(sb.root, 'opt', 'minnow', 'current'))).toBe(`releases/${sb.releaseId}`);
    const release = path.join(sb.root, 'opt', 'minnow', 'releases', sb.releaseId);
    for (const file of ['package.json', 'package-lock.json', 'bin/minnow.js', '.installed']) {
      expect(fs.existsSync(path.join(release, file))).toBe(true);
    }
  });

  test('first run: writes /etc/minnow/minnow.env: SASL_SSL outside, plaintext on loopback, no secret in it', () => {
    const env = fs.readFileSync(path.join(sb.root, 'etc', 'minnow', 'minnow.env'), 'utf8');
    expect(env).toBe(
      [
        `LISTENER_URL=sasl+tls://0.0.0.0:9093,tcp://127.0.0.1:${sb.loopbackPort}`,
        `ADVERTISED_LISTENER_URL=sasl+tls://${PUBLIC_DNS}:9093,tcp://127.0.0.1:${sb.loopbackPort}`,
        'SASL_MECHANISMS=SCRAM-SHA-512,SCRAM-SHA-256,PLAIN',
        `TLS_CERT_FILE=${sb.root}/data/tls/server.crt`,
        `TLS_KEY_FILE=${sb.root}/data/tls/server.key`,
        'TLS_CLIENT_AUTH=none',
        'SUPER_USERS=User:admin',
        'ALLOW_EVERYONE_IF_NO_ACL_FOUND=false',
        'MINNOW_ADMIN_USER=admin',
        `STORAGE_ENGINE=sqlite://${sb.root}/data/minnow.db`,
        'LOG_LEVEL=info',
        'MINNOW_METRICS_LISTENER=127.0.0.1:9464',
        '',
      ].join('\n'),
    );
    expect(env).not.toContain(ADMIN_PASSWORD);
    expect(first.stderr + first.calls.join('\n')).not.toContain(ADMIN_PASSWORD);
  });

  test('first run: installs the hardened unit, enables and (re)starts it', () => {
    const unit = fs.readFileSync(path.join(sb.root, 'etc', 'systemd', 'system', 'minnow.service'), 'utf8');
    for (const line of [
      'Restart=on-failure',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      `ReadWritePaths=${sb.root}/data`,
      `RequiresMountsFor=${sb.root}/data`,
      'User=minnow',
      `EnvironmentFile=${sb.root}/etc/minnow/minnow.env`,
      `ExecStart=${process.execPath} ${sb.root}/opt/minnow/current/bin/minnow.js serve`,
    ]) {
      expect(unit.split('\n')).toContain(line);
    }
    expect(named(first, 'systemctl')).toEqual([
      'systemctl daemon-reload', // fstab
      'systemctl daemon-reload', // security drop-in
      'systemctl daemon-reload', // the certificate renewal timer (install-cert-renewal.test.ts)
      'systemctl enable --now minnow-cert-renew.timer',
      'systemctl daemon-reload', // unit
      'systemctl enable minnow.service',
      'systemctl restart minnow.service',
    ]);
  });

  test('without ROOT the unit is installed exactly as shipped', () => {
    const shipped = fs.readFileSync(UNIT_SRC, 'utf8');
    expect(shipped).toContain('ExecStart=/usr/bin/node-22 /opt/minnow/current/bin/minnow.js serve');
    const rendered = fs.readFileSync(path.join(sb.root, 'etc', 'systemd', 'system', 'minnow.service'), 'utf8');
    const unprefixed = rendered.split(sb.root).join('').split(process.execPath).join('/usr/bin/node-22');
    expect(unprefixed).toBe(shipped);
  });

  test('second run changes nothing: no package install, user, attach, format, mount, download, npm ci or publish', () => {
    for (const command of ['dnf', 'useradd', 'mkfs.xfs', 'mount', 'npm-22']) {
      expect(named(second, command)).toEqual([]);
    }
    // Only reads: is the CA still published, and is the password file still the secret?
    expect(named(second, 'aws')).toEqual([
      `aws --region ${REGION} ssm get-parameter --name ${CA_PARAMETER} --query Parameter.Value --output text`,
      expect.stringMatching(/^aws --region \S+ secretsmanager get-secret-value --secret-id \S+ --query SecretString/),
    ]);
    expect(second.stderr).not.toMatch(/generating the CA|issuing the server certificate|publishing/);
    expect(named(second, 'systemctl')).toEqual([
      'systemctl enable --now minnow-cert-renew.timer',
      'systemctl enable minnow.service',
      'systemctl start minnow.service',
    ]);
    expect(
      fs
        .readFileSync(path.join(sb.root, 'etc', 'fstab'), 'utf8')
        .split('\n')
        .filter(Boolean),
    ).toHaveLength(1);
  });

  itWithTools('systemd-analyze')('systemd-analyze verify accepts the installed unit', () => {
    const analyze = 'systemd-analyze';
    const unit = path.join(sb.root, 'etc', 'systemd', 'system', 'minnow.service');
    // First prove the verifier works in this container: it must reject a broken unit.
    const broken = path.join(sb.dir, 'broken.service');
    fs.writeFileSync(broken, '[Service]\nExecStart=/nonexistent/node serve\nBogusKey=1\n');
    const bad = spawnSync(analyze, ['verify', broken], { encoding: 'utf8' });
    if (bad.status === 0 && bad.stderr === '') {
      throw new Error(
        `systemd-analyze verify cannot check units in this container (it accepted a broken unit): ${bad.stdout}`,
      );
    }
    expect(bad.stderr).toMatch(/BogusKey|not executable/);
    const result = spawnSync(analyze, ['verify', unit], { encoding: 'utf8' });
    expect({ status: result.status, output: result.stdout + result.stderr }).toEqual({ status: 0, output: '' });
  });
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('install.sh edge cases', () => {
  test('a volume restored from a snapshot keeps its filesystem: no mkfs', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'formatted'), '');
    const run = runInstall(sb);
    expectSuccess(run);
    expect(named(run, 'mkfs.xfs')).toEqual([]);
    expect(named(run, 'mount')).toHaveLength(1);
  });

  test('an attach answered VolumeInUse (the volume not yet let go of) is tried again', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'attach-failures'), '2');
    const run = runInstall(sb);
    expectSuccess(run);
    expect(named(run, 'aws').filter((c) => c.includes('attach-volume'))).toHaveLength(3);
    expect(run.stderr).toContain(`cannot attach ${VOLUME_ID} yet (An error occurred (VolumeInUse)); waiting`);
  });

  test('gives up on the volume after MINNOW_ATTACH_TIMEOUT_S, before touching anything else', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'attach-failures'), '1000000');
    const run = runInstall(sb, { MINNOW_ATTACH_TIMEOUT_S: '1', MINNOW_POLL_S: '0.2' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`volume ${VOLUME_ID} did not appear within 1s (last seen available)`);
    expect(named(run, 'mkfs.xfs')).toEqual([]);
    expect(named(run, 'systemctl')).toEqual([]);
  });

  test('npm ci failing (no prebuilt native binary) installs a compiler and retries', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'npm-failures'), '1');
    const run = runInstall(sb);
    expectSuccess(run);
    expect(named(run, 'dnf')).toEqual([
      'dnf install -y nodejs22 nodejs22-npm unzip openssl',
      'dnf install -y gcc-c++ make python3',
    ]);
    expect(named(run, 'npm-22')).toHaveLength(2);
  });

  test('refuses to run without its settings', async () => {
    const sb = await createSandbox();
    const run = runInstall(sb, { MINNOW_DATA_VOLUME_ID: '' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('MINNOW_DATA_VOLUME_ID is not set');
    expect(run.calls).toEqual([]);
  });
});
