import { CreateSnapshotCommand, DescribeSnapshotsCommand } from '@aws-sdk/client-ec2';
import { snapshotDataVolume } from '../../lib/ops/snapshot';
import { STACK, VOLUME_ID, clients, fakeRuntime, mocks } from './fixtures';

test('snapshot: of the data volume, waits with progress, returns the id', async () => {
  const { ec2 } = mocks();
  ec2.on(CreateSnapshotCommand).resolves({ SnapshotId: 'snap-0aaa', State: 'pending' });
  ec2
    .on(DescribeSnapshotsCommand, { SnapshotIds: ['snap-0aaa'] })
    .resolvesOnce({ Snapshots: [{ SnapshotId: 'snap-0aaa', State: 'pending', Progress: '0%' }] })
    .resolvesOnce({ Snapshots: [{ SnapshotId: 'snap-0aaa', State: 'pending', Progress: '45%' }] })
    .resolves({ Snapshots: [{ SnapshotId: 'snap-0aaa', State: 'completed', Progress: '100%' }] });
  const runtime = fakeRuntime();

  await expect(snapshotDataVolume(clients(), runtime, STACK, { pollMs: 1000 })).resolves.toBe('snap-0aaa');
  expect(ec2.commandCalls(CreateSnapshotCommand)[0]?.args[0].input).toMatchObject({
    VolumeId: VOLUME_ID,
    TagSpecifications: [
      { ResourceType: 'snapshot', Tags: expect.arrayContaining([{ Key: 'minnow:stack', Value: STACK }]) },
    ],
  });
  expect(runtime.lines).toEqual([
    `snapshot snap-0aaa of ${VOLUME_ID} started`,
    '  snap-0aaa: pending 0%',
    '  snap-0aaa: pending 45%',
    '  snap-0aaa: completed 100%',
  ]);
  expect(runtime.slept).toEqual([1000, 1000]);
});

test('a failed snapshot says so', async () => {
  const { ec2 } = mocks();
  ec2.on(CreateSnapshotCommand).resolves({ SnapshotId: 'snap-0bbb' });
  ec2.on(DescribeSnapshotsCommand).resolves({ Snapshots: [{ State: 'error', StateMessage: 'internal error' }] });
  await expect(snapshotDataVolume(clients(), fakeRuntime(), STACK)).rejects.toThrow(
    'snapshot snap-0bbb failed: internal error',
  );
});

test('gives up waiting after the timeout, saying the snapshot continues', async () => {
  const { ec2 } = mocks();
  ec2.on(CreateSnapshotCommand).resolves({ SnapshotId: 'snap-0ccc' });
  ec2.on(DescribeSnapshotsCommand).resolves({ Snapshots: [{ State: 'pending', Progress: '3%' }] });
  await expect(
    snapshotDataVolume(clients(), fakeRuntime(), STACK, { pollMs: 60_000, timeoutMs: 300_000 }),
  ).rejects.toThrow(/still pending \(3%\); it continues in AWS/);
});
