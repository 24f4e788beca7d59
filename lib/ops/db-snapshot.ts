import { CreateDBSnapshotCommand, DescribeDBSnapshotsCommand } from '@aws-sdk/client-rds';
import type { OpsClients, OpsRuntime } from './clients';
import { databaseIdFromEndpoint } from './database';
import { OpsError } from './errors';
import type { SnapshotOptions } from './snapshot';

/**
 * A manual snapshot's identifier: letters, digits and single hyphens, starting with a letter
 * (CreateDBSnapshot's DBSnapshotIdentifier rules). `<stack>-<UTC time>`, e.g. minnowcluster-20260601-120000.
 */
export function databaseSnapshotId(stackName: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/[-:]/g, '')
    .replace('T', '-');
  const base = stackName
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/^[^a-z]+/, '');
  return `${base || 'minnow'}-${stamp}`.replace(/-{2,}/g, '-');
}

/** What a failed CreateDBSnapshot means, when the RDS error says it. */
function explainCreateError(err: unknown, databaseId: string): unknown {
  const name = (err as { name?: string }).name ?? '';
  const message = (err as { message?: string }).message ?? '';
  if (name === 'InvalidDBInstanceStateFault') {
    return new OpsError(
      `database ${databaseId} cannot be snapshotted now (${message}): RDS snapshots an available instance only; ` +
        'retry once `npm run ops -- status` shows it available',
      { cause: err },
    );
  }
  if (name === 'SnapshotQuotaExceededFault') {
    return new OpsError(
      `too many manual DB snapshots in this region (${message}): delete old ones (aws rds delete-db-snapshot)`,
      { cause: err },
    );
  }
  if (name === 'DBInstanceNotFoundFault') {
    return new OpsError(`RDS instance ${databaseId} not found: was it deleted outside CloudFormation?`, { cause: err });
  }
  return err;
}

/**
 * `ops snapshot` on a storage=postgres cluster: a manual RDS snapshot of the database, which holds
 * all the state (each broker's /data has only its TLS files). RDS takes it from the instance
 * (Multi-AZ: from the standby, without I/O suspension on the primary). Manual snapshots outlive
 * the stack and are billed until deleted. Returns the identifier once the snapshot is available.
 */
export async function snapshotDatabase(
  clients: OpsClients,
  runtime: OpsRuntime,
  stackName: string,
  databaseEndpoint: string,
  opts: SnapshotOptions = {},
): Promise<string> {
  const databaseId = databaseIdFromEndpoint(databaseEndpoint);
  const snapshotId = databaseSnapshotId(stackName, runtime.now());
  try {
    await clients.rds.send(
      new CreateDBSnapshotCommand({
        DBInstanceIdentifier: databaseId,
        DBSnapshotIdentifier: snapshotId,
        Tags: [{ Key: 'minnow:stack', Value: stackName }],
      }),
    );
  } catch (err) {
    throw explainCreateError(err, databaseId);
  }
  runtime.log(`snapshot ${snapshotId} of database ${databaseId} started`);

  const deadline = runtime.now().getTime() + (opts.timeoutMs ?? 2 * 60 * 60_000);
  let last = '';
  for (;;) {
    const described = await clients.rds.send(new DescribeDBSnapshotsCommand({ DBSnapshotIdentifier: snapshotId }));
    const snapshot = described.DBSnapshots?.[0];
    const status = snapshot?.Status ?? 'creating';
    const progress = `${snapshot?.PercentProgress ?? 0}%`;
    const line = `${status} ${progress}`;
    if (line !== last) runtime.log(`  ${snapshotId}: ${line}`);
    last = line;
    if (status === 'available') return snapshotId;
    if (status === 'failed' || status === 'deleting' || status === 'deleted') {
      throw new OpsError(
        `snapshot ${snapshotId} of database ${databaseId} did not complete (status ${status}): see its events with ` +
          `aws rds describe-events --source-type db-snapshot --source-identifier ${snapshotId}`,
      );
    }
    if (runtime.now().getTime() >= deadline) {
      throw new OpsError(
        `snapshot ${snapshotId} is still ${status} (${progress}); it continues in AWS: ` +
          `aws rds describe-db-snapshots --db-snapshot-identifier ${snapshotId}`,
      );
    }
    await runtime.sleep(opts.pollMs ?? 10_000);
  }
}
