import { CreateSnapshotCommand, DescribeSnapshotsCommand } from '@aws-sdk/client-ec2';
import type { OpsClients, OpsRuntime } from './clients';
import { OpsError } from './errors';
import { readStackOutputs } from './stack-outputs';

export interface SnapshotOptions {
  /** @default 10 s */
  readonly pollMs?: number;
  /** @default 2 hours: the first snapshot of a volume copies every written block */
  readonly timeoutMs?: number;
}

/**
 * EBS snapshot of the data volume while the broker runs. SQLite in WAL mode makes a
 * crash-consistent snapshot a valid database: on restore it replays or discards the WAL.
 * Returns the snapshot id once the snapshot is complete (restorable in another AZ or stack).
 */
export async function snapshotDataVolume(
  clients: OpsClients,
  runtime: OpsRuntime,
  stackName: string,
  opts: SnapshotOptions = {},
): Promise<string> {
  const { dataVolumeId } = await readStackOutputs(clients, stackName);
  const created = await clients.ec2.send(
    new CreateSnapshotCommand({
      VolumeId: dataVolumeId,
      Description: `minnow data (${stackName}) ${runtime.now().toISOString()}`,
      TagSpecifications: [
        {
          ResourceType: 'snapshot',
          Tags: [
            { Key: 'Name', Value: `${stackName}-data` },
            { Key: 'minnow:stack', Value: stackName },
          ],
        },
      ],
    }),
  );
  const snapshotId = created.SnapshotId;
  if (!snapshotId) throw new OpsError(`CreateSnapshot for ${dataVolumeId} returned no snapshot id`);
  runtime.log(`snapshot ${snapshotId} of ${dataVolumeId} started`);

  const deadline = runtime.now().getTime() + (opts.timeoutMs ?? 2 * 60 * 60_000);
  let lastProgress = '';
  for (;;) {
    const described = await clients.ec2.send(new DescribeSnapshotsCommand({ SnapshotIds: [snapshotId] }));
    const snapshot = described.Snapshots?.[0];
    const state = snapshot?.State ?? 'pending';
    const progress = snapshot?.Progress ?? '0%';
    if (progress !== lastProgress) runtime.log(`  ${snapshotId}: ${state} ${progress}`);
    lastProgress = progress;
    if (state === 'completed') return snapshotId;
    if (state === 'error') {
      throw new OpsError(`snapshot ${snapshotId} failed: ${snapshot?.StateMessage ?? 'no reason given'}`);
    }
    if (runtime.now().getTime() >= deadline) {
      throw new OpsError(`snapshot ${snapshotId} is still ${state} (${progress}); it continues in AWS, check it later`);
    }
    await runtime.sleep(opts.pollMs ?? 10_000);
  }
}
