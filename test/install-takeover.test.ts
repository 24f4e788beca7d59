import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  INSTANCE_ID,
  REGION,
  VOLUME_ID,
  createSandbox,
  expectSuccess,
  named,
  runInstall,
  signals,
  type InstallRun,
  type Sandbox,
} from './helpers/install-sandbox';
import { describeWithTools } from '../broker/test/support/external-tools';

// A replacement boot takes its data volume over from the instance it replaces (issue 28,
// broker/deploy/take-volume.sh): it installs the release first, then stops the previous instance
// (tagged minnow:data-volume=<volume>), detaches the volume from it, attaches it here, and signals
// SUCCESS only once the broker answers. A failure after the takeover gives the volume back and
// starts the previous instance before the FAILURE. The sandbox's aws stub keeps EC2 as files.

const PREVIOUS = 'i-0aaaaaaaaaaaaaaa1';
const ec2 = (action: string, ...args: string[]) => `--region ${REGION} ec2 ${action} ${args.join(' ')}`;
const STOP_PREVIOUS = ec2('stop-instances', '--instance-ids', PREVIOUS);
const DETACH_FROM_PREVIOUS = ec2('detach-volume', '--volume-id', VOLUME_ID, '--instance-id', PREVIOUS);
const ATTACH_HERE = ec2(
  'attach-volume',
  '--volume-id',
  VOLUME_ID,
  '--instance-id',
  INSTANCE_ID,
  '--device',
  '/dev/sdf',
);
const DETACH_HERE = ec2('detach-volume', '--volume-id', VOLUME_ID, '--instance-id', INSTANCE_ID);
const START_PREVIOUS = ec2('start-instances', '--instance-ids', PREVIOUS);

const write = (sb: Sandbox, name: string, text: string) => fs.writeFileSync(path.join(sb.state, name), text);
const read = (sb: Sandbox, name: string) => fs.readFileSync(path.join(sb.state, name), 'utf8');
/** The EC2 calls that change something, in order (describe calls are left out). */
const ec2Log = (sb: Sandbox) =>
  (fs.existsSync(path.join(sb.state, 'ec2-log')) ? read(sb, 'ec2-log') : '').split('\n').filter(Boolean);
const previousFile = (sb: Sandbox) => path.join(sb.root, 'etc', 'minnow', 'previous-instance');
/** The position of the first stub call that matches. */
const at = (run: InstallRun, pattern: RegExp) => run.calls.findIndex((c) => pattern.test(c));

/** The volume is attached to PREVIOUS, which runs and carries `tag`. */
function heldBy(sb: Sandbox, tag: string, state = 'running'): void {
  write(sb, 'volume-holder', `${PREVIOUS}\n`);
  write(sb, `instance-${PREVIOUS}`, `${state} ${tag}\n`);
}

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('a replacement boot takes the volume over from the previous instance', () => {
  test('installs first, stops the tagged previous instance, waits, attaches; SUCCESS once the broker answers', async () => {
    const sb = await createSandbox();
    heldBy(sb, VOLUME_ID);
    write(sb, 'stopping-polls', '3'); // still stopping for three looks
    const run = runInstall(sb);
    expectSuccess(run);
    expect(ec2Log(sb)).toEqual([STOP_PREVIOUS, DETACH_FROM_PREVIOUS, ATTACH_HERE]);
    expect(read(sb, `instance-${PREVIOUS}`)).toBe(`stopped ${VOLUME_ID}\n`);
    expect(read(sb, 'volume-holder').trim()).toBe(INSTANCE_ID);
    // The release is downloaded and installed before the previous instance is stopped.
    const stop = at(run, /ec2 stop-instances/);
    expect(at(run, /s3 cp/)).toBeGreaterThan(-1);
    expect(at(run, /s3 cp/)).toBeLessThan(stop);
    expect(at(run, /^npm-22 ci/)).toBeLessThan(stop);
    expect(at(run, /^dnf install -y nodejs22/)).toBeLessThan(stop);
    // Detached only once stopped: three more looks at the instance came first.
    expect(
      run.calls.slice(stop, at(run, /ec2 detach-volume/)).filter((c) => c.includes('describe-instances')),
    ).toHaveLength(4);
    // One signal, SUCCESS, sent after the broker was started and answered.
    expect(signals(sb).map((s) => [s.Status, s.Reason])).toEqual([
      ['SUCCESS', `minnow ${sb.releaseId} answers on 127.0.0.1:${sb.loopbackPort}`],
    ]);
    expect(at(run, /^curl .*waitcondition/)).toBeGreaterThan(at(run, /^systemctl restart minnow.service/));
    expect(run.stderr).toContain(
      `stopping ${PREVIOUS}, the previous instance of this broker, to take over ${VOLUME_ID}`,
    );
    expect(fs.existsSync(previousFile(sb))).toBe(false); // the takeover stands
  });

  test('a reboot of the new instance (volume attached here) makes no EC2 call', async () => {
    const sb = await createSandbox();
    heldBy(sb, VOLUME_ID);
    expectSuccess(runInstall(sb));
    fs.rmSync(path.join(sb.state, 'ec2-log'));
    const again = runInstall(sb);
    expectSuccess(again);
    expect(named(again, 'aws').filter((c) => c.includes(' ec2 '))).toEqual([]);
  });

  test('a volume held by an instance without the tag: FAILURE naming it, nothing stopped', async () => {
    const sb = await createSandbox();
    heldBy(sb, 'None');
    const run = runInstall(sb);
    expect(run.status).toBe(1);
    expect(ec2Log(sb)).toEqual([]);
    const sent = signals(sb);
    expect(sent.map((s) => s.Status)).toEqual(['FAILURE']);
    expect(sent[0]?.Reason).toBe(
      `volume ${VOLUME_ID} is attached to instance ${PREVIOUS} (running), which is not an instance of this ` +
        `broker (its tag minnow:data-volume is 'None', not ${VOLUME_ID}); detach it from there (aws ec2 ` +
        `detach-volume --volume-id ${VOLUME_ID}) and deploy again`,
    );
    expect(named(run, 'mkfs.xfs')).toEqual([]);
  });

  test('an instance of another volume (tagged with it) is not stopped either', async () => {
    const sb = await createSandbox();
    heldBy(sb, 'vol-0fffffffffffffff0');
    const run = runInstall(sb);
    expect(run.status).toBe(1);
    expect(ec2Log(sb)).toEqual([]);
    expect(signals(sb)[0]?.Reason).toContain(`its tag minnow:data-volume is 'vol-0fffffffffffffff0'`);
  });

  test('throttling (RequestLimitExceeded) is retried with no early signal', async () => {
    const sb = await createSandbox();
    heldBy(sb, VOLUME_ID);
    write(sb, 'throttle-describe-volumes', '1');
    write(sb, 'throttle-stop-instances', '2');
    write(sb, 'throttle-attach-volume', '2');
    const run = runInstall(sb);
    expectSuccess(run);
    expect(ec2Log(sb)).toEqual([STOP_PREVIOUS, DETACH_FROM_PREVIOUS, ATTACH_HERE]);
    expect(named(run, 'aws').filter((c) => c.includes('ec2 attach-volume'))).toHaveLength(3);
    expect(named(run, 'aws').filter((c) => c.includes('ec2 stop-instances'))).toHaveLength(3);
    expect(run.stderr).toMatch(
      /attaching vol-0123456789abcdef0 failed \(An error occurred \(RequestLimitExceeded\).*; trying again/,
    );
    expect(signals(sb).map((s) => s.Status)).toEqual(['SUCCESS']);
  });

  test('a refused stop: FAILURE with EC2 message, the previous instance keeps running and is not "started again"', async () => {
    const sb = await createSandbox();
    heldBy(sb, VOLUME_ID);
    write(
      sb,
      'stop-instances-error',
      'An error occurred (UnauthorizedOperation) when calling the StopInstances operation: no\n',
    );
    const run = runInstall(sb);
    expect(run.status).toBe(1);
    expect(signals(sb)[0]?.Reason).toBe(
      `stopping ${PREVIOUS}, the previous instance of this broker, to take over ${VOLUME_ID} was refused ` +
        '(An error occurred (UnauthorizedOperation) when calling the StopInstances operation: no)',
    );
    expect(named(run, 'aws').filter((c) => c.includes('start-instances'))).toEqual([]);
  });

  test('a failure before the takeover (npm ci) never stops the previous instance', async () => {
    const sb = await createSandbox();
    heldBy(sb, VOLUME_ID);
    write(sb, 'npm-failures', '2');
    const run = runInstall(sb);
    expect(run.status).not.toBe(0);
    expect(ec2Log(sb)).toEqual([]);
    expect(read(sb, `instance-${PREVIOUS}`)).toBe(`running ${VOLUME_ID}\n`);
    expect(signals(sb)[0]?.Reason).toMatch(/^minnow-install failed at line \d+: .*ci --omit=dev.*; see \/var\/log/);
  });
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('a boot that fails after the takeover gives the volume back', () => {
  test('the broker does not answer: minnow stopped, /data unmounted, volume detached, previous started, then FAILURE', async () => {
    const sb = await createSandbox();
    heldBy(sb, VOLUME_ID);
    write(sb, 'broker-down', '');
    const run = runInstall(sb, { MINNOW_HEALTH_TIMEOUT_S: '1' });
    expect(run.status).toBe(1);
    expect(ec2Log(sb)).toEqual([STOP_PREVIOUS, DETACH_FROM_PREVIOUS, ATTACH_HERE, DETACH_HERE, START_PREVIOUS]);
    expect(fs.existsSync(path.join(sb.state, 'volume-holder'))).toBe(false); // available for its boot
    expect(read(sb, `instance-${PREVIOUS}`)).toBe(`running ${VOLUME_ID}\n`);
    expect(fs.existsSync(path.join(sb.state, 'mounted'))).toBe(false);
    const giveBack = run.calls.slice(at(run, /systemctl stop minnow.service/));
    expect(giveBack.filter((c) => /^(umount|aws .*ec2 (detach|start))/.test(c))).toEqual([
      `umount ${sb.root}/data`,
      `aws ${DETACH_HERE}`,
      `aws ${START_PREVIOUS}`,
    ]);
    expect(signals(sb)).toEqual([
      expect.objectContaining({
        Status: 'FAILURE',
        Reason:
          `release ${sb.releaseId} did not answer on 127.0.0.1:${sb.loopbackPort} within 1s (journalctl -u minnow)` +
          `; the previous instance ${PREVIOUS} was started again`,
      }),
    ]);
    expect(at(run, /^curl .*waitcondition/)).toBeGreaterThan(at(run, /ec2 start-instances/));
    expect(fs.existsSync(previousFile(sb))).toBe(false);
  });

  test('a failed command (set -e) after the takeover gives back too', async () => {
    const sb = await createSandbox();
    heldBy(sb, VOLUME_ID);
    fs.mkdirSync(path.join(sb.root, 'usr', 'local'), { recursive: true });
    fs.writeFileSync(path.join(sb.root, 'usr', 'local', 'sbin'), 'a file where release.sh installs minnow-rollback');
    const run = runInstall(sb);
    expect(run.status).not.toBe(0);
    expect(ec2Log(sb).slice(-2)).toEqual([DETACH_HERE, START_PREVIOUS]);
    expect(signals(sb).map((s) => s.Reason)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^minnow-install failed at line \\d+: .*; see /var/log/cloud-init-output.log; the previous instance ${PREVIOUS} was started again$`,
        ),
      ),
    ]);
  });

  test('the attach refused after the stop (KMS): the previous instance is started again (its boot attaches the volume)', async () => {
    const sb = await createSandbox();
    heldBy(sb, VOLUME_ID);
    write(
      sb,
      'attach-error',
      'An error occurred (InvalidParameterValue) when calling the AttachVolume operation: the KMS key is not accessible\n',
    );
    const run = runInstall(sb);
    expect(run.status).toBe(1);
    expect(ec2Log(sb)).toEqual([STOP_PREVIOUS, DETACH_FROM_PREVIOUS, ATTACH_HERE, START_PREVIOUS]);
    expect(signals(sb)[0]?.Reason).toMatch(
      new RegExp(
        `^attaching ${VOLUME_ID} was refused \\(.*KMS key.*\\)\\. If .*; the previous instance ${PREVIOUS} was started again$`,
      ),
    );
  });

  test('the previous instance cannot be started: the FAILURE says to start it by hand', async () => {
    const sb = await createSandbox();
    heldBy(sb, VOLUME_ID);
    write(sb, 'broker-down', '');
    write(
      sb,
      'start-instances-error',
      'An error occurred (InsufficientInstanceCapacity) when calling the StartInstances operation: none\n',
    );
    const run = runInstall(sb, { MINNOW_HEALTH_TIMEOUT_S: '1' });
    expect(run.status).toBe(1);
    expect(signals(sb)[0]?.Reason).toContain(
      `; starting the previous instance ${PREVIOUS} failed (An error occurred (InsufficientInstanceCapacity) when ` +
        `calling the StartInstances operation: none): start it yourself (aws ec2 start-instances --instance-ids ${PREVIOUS})`,
    );
  });
});

describeWithTools(
  'zip',
  'unzip',
  'openssl',
)('the Xen device /dev/xvdf (t2) is used only when it is this volume', () => {
  const xvdf = (sb: Sandbox) => path.join(sb.root, 'dev', 'xvdf');

  test('attached here as /dev/sdf: /dev/xvdf is formatted and mounted', async () => {
    const sb = await createSandbox();
    write(sb, 'xen', '');
    const run = runInstall(sb);
    expectSuccess(run);
    expect(named(run, 'mkfs.xfs')).toEqual([`mkfs.xfs -L minnow-data ${xvdf(sb)}`]);
  });

  test('/dev/xvdf of another volume (/dev/sdf taken): the boot fails, the device is not touched', async () => {
    const sb = await createSandbox();
    fs.mkdirSync(path.join(sb.root, 'dev'), { recursive: true });
    fs.writeFileSync(xvdf(sb), '');
    write(
      sb,
      'attach-error',
      'An error occurred (InvalidParameterValue) when calling the AttachVolume operation: Attachment point /dev/sdf is already in use\n',
    );
    const run = runInstall(sb);
    expect(run.status).toBe(1);
    expect(named(run, 'mkfs.xfs')).toEqual([]);
    expect(named(run, 'blkid')).toEqual([]);
    expect(signals(sb)[0]?.Reason).toBe(
      `attaching ${VOLUME_ID} failed (An error occurred (InvalidParameterValue) when calling the AttachVolume ` +
        'operation: Attachment point /dev/sdf is already in use)',
    );
  });

  test('this volume attached here under another name: /dev/xvdf is not taken for it', async () => {
    const sb = await createSandbox();
    fs.mkdirSync(path.join(sb.root, 'dev'), { recursive: true });
    fs.writeFileSync(xvdf(sb), '');
    write(sb, 'volume-holder', `${INSTANCE_ID}\n`);
    write(sb, 'volume-device', '/dev/sdg\n');
    const run = runInstall(sb, { MINNOW_ATTACH_TIMEOUT_S: '1', MINNOW_POLL_S: '0.2' });
    expect(run.status).toBe(1);
    expect(named(run, 'mkfs.xfs')).toEqual([]);
    expect(signals(sb)[0]?.Reason).toBe(
      `volume ${VOLUME_ID} did not appear within 1s (last seen in-use, attached to ${INSTANCE_ID} as /dev/sdg)`,
    );
  });
});
