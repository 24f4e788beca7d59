import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  INSTALL_SH,
  INSTANCE_ID,
  MINNOW_ID,
  VOLUME_ID,
  createSandbox,
  expectSuccess,
  named,
  runInstall,
  signals,
  type Sandbox,
} from './helpers/install-sandbox';
import { describeWithTools } from '../broker/test/support/external-tools';

// The boot's report to CloudFormation (the release's wait condition handle: one SUCCESS or FAILURE
// with the reason), the health check before `current` moves, minnow-rollback, and the minnow user's
// fixed ids with the ownership repair under /data. The sandbox's systemctl starts a fake broker that
// answers ApiVersions unless told not to; its curl records what was sent to the handle.

const link = (sb: Sandbox, name: string) => fs.readlinkSync(path.join(sb.root, 'opt', 'minnow', name));
const releaseUrl = (id: string) => `s3://cdk-hnb659fds-assets-123456789012-eu-west-2/${id}.zip`;

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('the boot tells CloudFormation, once', () => {
  test('success: the broker answers ApiVersions on loopback, then one SUCCESS naming the release', async () => {
    const sb = await createSandbox();
    const run = runInstall(sb);
    expectSuccess(run);
    expect(signals(sb)).toEqual([
      {
        Status: 'SUCCESS',
        Reason: `minnow ${sb.releaseId} answers on 127.0.0.1:${sb.loopbackPort}`,
        UniqueId: INSTANCE_ID,
        Data: sb.releaseId,
      },
    ]);
    expect(link(sb, 'current')).toBe(`releases/${sb.releaseId}`);
  });

  test('the Elastic IP moves after SUCCESS: the agent install waits for it, bounded', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'public-ip'), '198.51.100.20'); // the launch-time address
    const run = runInstall(sb, {
      MINNOW_EIP_TIMEOUT_S: '1',
      MINNOW_POLL_S: '0.2',
      MINNOW_LOG_GROUP: 'minnow-broker',
      MINNOW_METRICS_LOG_GROUP: 'minnow-metrics',
    });
    expectSuccess(run);
    expect(signals(sb).map((s) => s.Status)).toEqual(['SUCCESS']);
    expect(run.stderr).toContain('warning: the public address is not 203.0.113.99 yet; installing the agent anyway');
    const at = (match: (c: string) => boolean) => run.calls.findIndex(match);
    const polls = run.calls.filter((c) => c.startsWith('curl ') && c.endsWith('public-ipv4'));
    expect(polls.length).toBeGreaterThanOrEqual(1); // bash counts SECONDS whole: a 1 s wait may poll once
    const signalled = at((c) => c.startsWith('curl ') && c.includes('--data-binary'));
    const firstPoll = at((c) => c.startsWith('curl ') && c.endsWith('public-ipv4'));
    const agent = at((c) => c.startsWith('dnf ') && c.includes('amazon-cloudwatch-agent'));
    expect(signalled).toBeGreaterThanOrEqual(0);
    expect(firstPoll).toBeGreaterThan(signalled);
    expect(agent).toBeGreaterThan(firstPoll);
  });

  test('the broker never answers: FAILURE with the reason, exit 1', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'broker-down'), '');
    const run = runInstall(sb, { MINNOW_HEALTH_TIMEOUT_S: '1' });
    expect(run.status).toBe(1);
    const reason = `release ${sb.releaseId} did not answer on 127.0.0.1:${sb.loopbackPort} within 1s (journalctl -u minnow)`;
    expect(run.stderr).toContain(`error: ${reason}`);
    expect(signals(sb)).toEqual([{ Status: 'FAILURE', Reason: reason, UniqueId: INSTANCE_ID, Data: sb.releaseId }]);
  });

  test('npm ci fails even with a compiler (set -e): FAILURE naming the failed command', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'npm-failures'), '2');
    const run = runInstall(sb);
    expect(run.status).not.toBe(0);
    const sent = signals(sb);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.Status).toBe('FAILURE');
    expect(sent[0]?.Reason).toMatch(
      /^minnow-install failed at line \d+: .*ci --omit=dev.*; see \/var\/log\/cloud-init-output\.log$/,
    );
    expect(named(run, 'systemctl').filter((c) => /start|stop/.test(c))).toEqual([]);
  });

  test('die in the attach loop (the attached volume never shows up): FAILURE with its message', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'attach-no-device'), '');
    const run = runInstall(sb, { MINNOW_ATTACH_TIMEOUT_S: '1', MINNOW_POLL_S: '0.2' });
    expect(run.status).toBe(1);
    // What it saw last depends on how far the second passed: the attach may not have been read back.
    expect(signals(sb)).toEqual([
      {
        Status: 'FAILURE',
        Reason: expect.stringMatching(new RegExp(`^volume ${VOLUME_ID} did not appear within 1s \\(last seen `)),
        UniqueId: INSTANCE_ID,
        Data: sb.releaseId,
      },
    ]);
  });

  test('a refused attach (no right to the KMS key): FAILURE with the refusal, no SUCCESS before it', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(
      path.join(sb.state, 'attach-error'),
      'An error occurred (UnauthorizedOperation) when calling the AttachVolume operation: not authorized\n',
    );
    const run = runInstall(sb, { MINNOW_ATTACH_TIMEOUT_S: '3', MINNOW_POLL_S: '0.1' });
    expect(run.status).toBe(1);
    const sent = signals(sb);
    expect(sent.map((s) => s.Status)).toEqual(['FAILURE']);
    expect(sent[0]?.Reason).toMatch(
      new RegExp(`^attaching ${VOLUME_ID} was refused \\(An error occurred \\(UnauthorizedOperation\\)`),
    );
  });

  test('a volume still in use (VolumeInUse) is waited for: no signal until the broker answers (issue 28)', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(path.join(sb.state, 'attach-failures'), '2');
    const run = runInstall(sb);
    expectSuccess(run);
    expect(signals(sb).map((s) => [s.Status, s.Reason])).toEqual([
      ['SUCCESS', `minnow ${sb.releaseId} answers on 127.0.0.1:${sb.loopbackPort}`],
    ]);
  });

  test('no signal without MINNOW_SIGNAL_URL (a reboot of an instance from before this kit)', async () => {
    const sb = await createSandbox();
    expectSuccess(runInstall(sb, { MINNOW_SIGNAL_URL: '' }));
    expect(signals(sb)).toEqual([]);
  });
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('releases: health check before the switch, rollback', () => {
  let sb: Sandbox;
  const first = () => sb.releaseId;
  beforeEach(async () => {
    sb = await createSandbox();
    expectSuccess(runInstall(sb));
    fs.rmSync(path.join(sb.state, 'signals'));
  });

  test('a new release that does not answer: the previous one runs again, FAILURE says so', () => {
    fs.writeFileSync(path.join(sb.state, 'broken-releases'), 'two\n');
    const run = runInstall(sb, { MINNOW_ASSET_URL: releaseUrl('two'), MINNOW_HEALTH_TIMEOUT_S: '5' });
    expect(run.status).toBe(1);
    expect(link(sb, 'current')).toBe(`releases/${first()}`);
    expect(named(run, 'systemctl').filter((c) => c.includes('restart'))).toHaveLength(2); // two, then back
    expect(signals(sb)).toEqual([
      {
        Status: 'FAILURE',
        Reason:
          `release two did not answer on 127.0.0.1:${sb.loopbackPort} within 5s; back on ${first()}, ` +
          'which answers (journalctl -u minnow)',
        UniqueId: INSTANCE_ID,
        Data: 'two',
      },
    ]);
    expect(fs.existsSync(path.join(sb.root, 'opt', 'minnow', 'releases', first()))).toBe(true);
  });

  test('a release whose native module does not load is refused before the running broker is stopped', () => {
    const run0 = runInstall(sb, { MINNOW_ASSET_URL: releaseUrl('two') });
    expectSuccess(run0);
    // Release three: its node_modules is a directory without better-sqlite3.
    const three = path.join(sb.root, 'opt', 'minnow', 'releases', 'three');
    fs.cpSync(path.join(sb.root, 'opt', 'minnow', 'releases', 'two'), three, {
      recursive: true,
      verbatimSymlinks: true,
    });
    fs.rmSync(path.join(three, 'node_modules'));
    fs.mkdirSync(path.join(three, 'node_modules'));
    fs.rmSync(path.join(sb.state, 'signals'));
    const run = runInstall(sb, { MINNOW_ASSET_URL: releaseUrl('three') });
    expect(run.status).toBe(1);
    expect(named(run, 'systemctl').filter((c) => /restart|stop/.test(c))).toEqual([]);
    expect(link(sb, 'current')).toBe('releases/two');
    expect(signals(sb)[0]?.Reason).toBe(
      'release three cannot load better-sqlite3 (npm ci output above); two keeps running',
    );
  });

  test('a good new release: current moves, previous names the old one, older ones go', () => {
    expectSuccess(runInstall(sb, { MINNOW_ASSET_URL: releaseUrl('two') }));
    expect(signals(sb).map((s) => [s.Status, s.Data])).toEqual([['SUCCESS', 'two']]);
    expectSuccess(runInstall(sb, { MINNOW_ASSET_URL: releaseUrl('three') }));
    expect(link(sb, 'current')).toBe('releases/three');
    expect(link(sb, 'previous')).toBe('releases/two');
    expect(fs.readdirSync(path.join(sb.root, 'opt', 'minnow', 'releases')).sort()).toEqual(['three', 'two']);
  });

  test('minnow-rollback: back to the previous release, kept across reboots until another release comes', () => {
    const sbin = path.join(sb.root, 'usr', 'local', 'sbin');
    fs.copyFileSync(INSTALL_SH, path.join(sbin, 'minnow-install')); // what the user data installs
    expectSuccess(runInstall(sb, { MINNOW_ASSET_URL: releaseUrl('two') }));
    fs.rmSync(path.join(sb.state, 'signals'));

    const rollback = runInstall(sb, { MINNOW_ASSET_URL: releaseUrl('two') }, path.join(sbin, 'minnow-rollback'));
    expectSuccess(rollback);
    expect(rollback.stderr).toContain(`rolling back from two to ${first()}`);
    expect(link(sb, 'current')).toBe(`releases/${first()}`);
    expect(link(sb, 'previous')).toBe('releases/two');
    expect(signals(sb)).toEqual([]); // no deploy waits for it

    const reboot = runInstall(sb, { MINNOW_ASSET_URL: releaseUrl('two') });
    expectSuccess(reboot);
    expect(reboot.stderr).toContain('release two was rolled back (minnow-rollback)');
    expect(link(sb, 'current')).toBe(`releases/${first()}`);

    expectSuccess(runInstall(sb, { MINNOW_ASSET_URL: releaseUrl('three') }));
    expect(link(sb, 'current')).toBe('releases/three');
    expect(fs.existsSync(path.join(sb.root, 'opt', 'minnow', 'rolled-back'))).toBe(false);
  });

  test('minnow-rollback without a previous release says so', () => {
    const sbin = path.join(sb.root, 'usr', 'local', 'sbin');
    fs.copyFileSync(INSTALL_SH, path.join(sbin, 'minnow-install'));
    const run = runInstall(sb, {}, path.join(sbin, 'minnow-rollback'));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('no previous release to roll back to');
  });
});

// Real ownership needs root (chown to other uids); the sandbox's chown then runs for real.
const asRoot = process.getuid?.() === 0;
if (!asRoot) console.log('install-boot: ownership tests skipped (they chown files to other uids: run as root)');
describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('the minnow user has fixed ids and owns what it writes', () => {
  const maybe = asRoot ? test : test.skip;

  maybe(
    'files of another uid under /data are given to minnow; symlinks are not followed; a second boot changes nothing',
    async () => {
      const sb = await createSandbox();
      const data = path.join(sb.root, 'data');
      const outside = path.join(sb.dir, 'outside.txt');
      fs.writeFileSync(outside, "not the broker's");
      fs.chownSync(outside, 4343, 4343);
      fs.mkdirSync(path.join(data, 'sub'), { recursive: true });
      for (const file of ['minnow.db', 'minnow.db-wal', 'minnow.db-shm', 'minnow.db.lock', 'sub/old.db']) {
        fs.writeFileSync(path.join(data, file), 'x');
        fs.chownSync(path.join(data, file), 4242, 4242);
      }
      fs.chownSync(path.join(data, 'sub'), 4242, 4242);
      fs.chownSync(data, 4242, 4242);
      fs.symlinkSync(outside, path.join(data, 'escape'));
      // An instance of the old kit: minnow has a dynamic id.
      fs.writeFileSync(path.join(sb.state, 'user-minnow'), '989:989\n');
      fs.writeFileSync(path.join(sb.state, 'group-minnow'), '989\n');

      const run = runInstall(sb);
      expectSuccess(run);
      expect(named(run, 'groupmod')).toEqual([`groupmod --gid ${MINNOW_ID} minnow`]);
      expect(named(run, 'usermod')).toEqual([`usermod --uid ${MINNOW_ID} --gid ${MINNOW_ID} minnow`]);
      const calls = run.calls.filter((c) => /^(systemctl stop|usermod)/.test(c));
      expect(calls[0]).toBe('systemctl stop minnow.service'); // usermod refuses while the user runs a process
      for (const file of [
        '',
        'minnow.db',
        'minnow.db-wal',
        'minnow.db-shm',
        'minnow.db.lock',
        'sub',
        'sub/old.db',
        'escape',
      ]) {
        const st = fs.lstatSync(path.join(data, file));
        expect({ file, uid: st.uid, gid: st.gid }).toEqual({ file, uid: MINNOW_ID, gid: MINNOW_ID });
      }
      expect(fs.statSync(outside).uid).toBe(4343); // the link itself changed owner, not its target
      expect(fs.statSync(path.join(data, 'tls', 'ca', 'ca.key')).uid).toBe(0); // tls/ is security.sh's

      const again = runInstall(sb);
      expectSuccess(again);
      expect(named(again, 'chown').filter((c) => c.startsWith('chown -h'))).toEqual([]);
      expect(named(again, 'usermod')).toEqual([]);
    },
  );

  test('an id taken by another account stops the boot with a FAILURE that says what to do', async () => {
    const sb = await createSandbox();
    fs.writeFileSync(
      path.join(sb.state, `getent-passwd-${MINNOW_ID}`),
      `someone:x:${MINNOW_ID}:100::/home/someone:/bin/bash\n`,
    );
    const run = runInstall(sb);
    expect(run.status).toBe(1);
    expect(signals(sb)[0]?.Reason).toBe(
      `id ${MINNOW_ID} is taken by passwd entry someone; set MINNOW_UID in /etc/minnow/install.env to a free id`,
    );
  });
});
