import * as fs from 'node:fs';
import * as path from 'node:path';
import { createSandbox, runInstall, type InstallRun, type Sandbox } from './helpers/install-sandbox';
import { describeWithTools } from '../broker/test/support/external-tools';

// The attach loop of broker/deploy/install.sh (issue 14, item 4): a refused attach, which is what
// a role without the volume's KMS key gets, stops the boot at once with a message that names the
// fix, instead of retrying for 30 minutes as if the volume were still held by another instance.
// A short MINNOW_ATTACH_TIMEOUT_S makes the old behaviour fail fast instead of hanging the test.

const attachCalls = (run: InstallRun) => run.calls.filter((c) => c.includes('ec2 attach-volume'));

function expectRefused(run: InstallRun, why: RegExp): void {
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(/minnow-install: error: attaching vol-0123456789abcdef0 was refused \(/);
  expect(run.stderr).toMatch(why);
  expect(run.stderr).toContain('-c dataVolumeKmsKeyArn=<its key ARN>');
  expect(run.stderr).toContain('aws ec2 get-ebs-default-kms-key-id');
  expect(run.stderr).not.toMatch(/did not appear within/);
  // Nothing is formatted or mounted without the volume.
  expect(run.calls.filter((c) => c.startsWith('mkfs.xfs') || c.startsWith('mount '))).toEqual([]);
}

describeWithTools('zip')('install.sh tells a refused attach from a volume still in use', () => {
  let sb: Sandbox;
  beforeEach(async () => {
    sb = await createSandbox();
  });
  const state = (name: string, text: string) => fs.writeFileSync(path.join(sb.state, name), text);
  const run = () => runInstall(sb, { MINNOW_ATTACH_TIMEOUT_S: '3', MINNOW_POLL_S: '0.1' });

  test('UnauthorizedOperation: dies at the first refusal, naming dataVolumeKmsKeyArn', () => {
    state(
      'attach-error',
      '\nAn error occurred (UnauthorizedOperation) when calling the AttachVolume operation: You are not ' +
        'authorized to perform this operation. Encoded authorization failure message: AbC\n',
    );
    const result = run();
    expectRefused(result, /refused \(An error occurred \(UnauthorizedOperation\) when calling the AttachVolume/);
    expect(attachCalls(result)).toHaveLength(1);
  });

  test('a KMS error from AttachVolume: dies at once', () => {
    state(
      'attach-error',
      'An error occurred (InvalidParameterValue) when calling the AttachVolume operation: the KMS key ' +
        'arn:aws:kms:eu-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab is not accessible\n',
    );
    const result = run();
    expectRefused(result, /the KMS key arn:aws:kms:eu-west-2:123456789012:key\/1234abcd/);
    expect(attachCalls(result)).toHaveLength(1);
  });

  test('accepted, then back to available (EC2 could not use the key): dies after three tries', () => {
    state('attach-dropped', ''); // EC2 accepts the attach, the volume stays available
    const result = run();
    expectRefused(result, /refused \(back to available after attaching, 3 times\)/);
    expect(attachCalls(result)).toHaveLength(3);
  });

  test('VolumeInUse (the previous instance still holds it) is waited out, not refused', () => {
    state('attach-failures', '2');
    const result = run();
    expect(result.stderr).not.toMatch(/refused/);
    expect(result.stderr).toMatch(
      /cannot attach vol-0123456789abcdef0 yet \(An error occurred \(VolumeInUse\)\); waiting/,
    );
    expect(attachCalls(result)).toHaveLength(3);
    expect(result.status).toBe(0);
  });

  test('attaching (in-use) is not mistaken for a refusal', () => {
    // Accepted, attached here, no device yet: the loop waits until its deadline.
    state('attach-no-device', '');
    const result = run();
    expect(result.status).toBe(1);
    expect(result.stderr).not.toMatch(/refused/);
    expect(result.stderr).toMatch(/did not appear within 3s/);
    expect(attachCalls(result)).toHaveLength(1);
  });
});
