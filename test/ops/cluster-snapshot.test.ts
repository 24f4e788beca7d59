import { CreateSnapshotCommand } from '@aws-sdk/client-ec2';
import { CreateDBSnapshotCommand, DescribeDBSnapshotsCommand } from '@aws-sdk/client-rds';
import { main, type CliDeps } from '../../bin/ops';
import { databaseSnapshotId, snapshotDatabase } from '../../lib/ops/db-snapshot';
import { CLUSTER, DB_ENDPOINT, DB_ID, clusterMocks } from './cluster-fixtures';
import { NOW, clients, fakeRuntime } from './fixtures';

const SNAP = 'minnowcluster-20260601-120000';

test('the snapshot identifier: the stack and the UTC time, as RDS allows', () => {
  expect(databaseSnapshotId(CLUSTER, NOW)).toBe(SNAP);
  expect(databaseSnapshotId('My_Stack--2', NOW)).toBe('my-stack-2-20260601-120000');
  expect(databaseSnapshotId('9lives', NOW)).toBe('lives-20260601-120000');
});

test('snapshot of a cluster: an RDS snapshot of the database, waited for with progress', async () => {
  const { rds } = clusterMocks();
  rds.on(CreateDBSnapshotCommand).resolves({ DBSnapshot: { DBSnapshotIdentifier: SNAP, Status: 'creating' } });
  rds
    .on(DescribeDBSnapshotsCommand, { DBSnapshotIdentifier: SNAP })
    .resolvesOnce({ DBSnapshots: [{ Status: 'creating', PercentProgress: 0 }] })
    .resolvesOnce({ DBSnapshots: [{ Status: 'creating', PercentProgress: 0 }] })
    .resolvesOnce({ DBSnapshots: [{ Status: 'creating', PercentProgress: 60 }] })
    .resolves({ DBSnapshots: [{ Status: 'available', PercentProgress: 100 }] });
  const runtime = fakeRuntime();

  await expect(snapshotDatabase(clients(), runtime, CLUSTER, DB_ENDPOINT, { pollMs: 1000 })).resolves.toBe(SNAP);
  expect(rds.commandCalls(CreateDBSnapshotCommand)[0]?.args[0].input).toEqual({
    DBInstanceIdentifier: DB_ID,
    DBSnapshotIdentifier: SNAP,
    Tags: [{ Key: 'minnow:stack', Value: CLUSTER }],
  });
  expect(runtime.lines).toEqual([
    `snapshot ${SNAP} of database ${DB_ID} started`,
    `  ${SNAP}: creating 0%`,
    `  ${SNAP}: creating 60%`,
    `  ${SNAP}: available 100%`,
  ]);
  expect(runtime.slept).toEqual([1000, 1000, 1000]);
});

test('a failed snapshot is a clear error naming where to look', async () => {
  const { rds } = clusterMocks();
  rds.on(CreateDBSnapshotCommand).resolves({});
  rds
    .on(DescribeDBSnapshotsCommand)
    .resolvesOnce({ DBSnapshots: [{ Status: 'creating', PercentProgress: 10 }] })
    .resolves({ DBSnapshots: [{ Status: 'failed', PercentProgress: 10 }] });
  await expect(snapshotDatabase(clients(), fakeRuntime(), CLUSTER, DB_ENDPOINT)).rejects.toThrow(
    `snapshot ${SNAP} of database ${DB_ID} did not complete (status failed): see its events with ` +
      `aws rds describe-events --source-type db-snapshot --source-identifier ${SNAP}`,
  );
});

test('the wait is bounded: after the timeout it says the snapshot continues', async () => {
  const { rds } = clusterMocks();
  rds.on(CreateDBSnapshotCommand).resolves({});
  rds.on(DescribeDBSnapshotsCommand).resolves({ DBSnapshots: [{ Status: 'creating', PercentProgress: 3 }] });
  const runtime = fakeRuntime();
  await expect(
    snapshotDatabase(clients(), runtime, CLUSTER, DB_ENDPOINT, { pollMs: 60_000, timeoutMs: 300_000 }),
  ).rejects.toThrow(
    `snapshot ${SNAP} is still creating (3%); it continues in AWS: aws rds describe-db-snapshots --db-snapshot-identifier ${SNAP}`,
  );
  expect(runtime.slept).toEqual([60_000, 60_000, 60_000, 60_000, 60_000]);
});

test('a database that is not available: RDS refuses, the CLI says when to retry', async () => {
  const { rds } = clusterMocks();
  rds
    .on(CreateDBSnapshotCommand)
    .rejects(
      Object.assign(new Error('Database instance is not in available state.'), { name: 'InvalidDBInstanceStateFault' }),
    );
  await expect(snapshotDatabase(clients(), fakeRuntime(), CLUSTER, DB_ENDPOINT)).rejects.toThrow(
    `database ${DB_ID} cannot be snapshotted now (Database instance is not in available state.): RDS snapshots ` +
      'an available instance only; retry once `npm run ops -- status` shows it available',
  );
  expect(rds.commandCalls(DescribeDBSnapshotsCommand)).toHaveLength(0);
});

test('ops snapshot --stack MinnowCluster prints the RDS snapshot id and touches no EBS volume', async () => {
  const { rds, ec2 } = clusterMocks();
  rds.on(CreateDBSnapshotCommand).resolves({});
  rds.on(DescribeDBSnapshotsCommand).resolves({ DBSnapshots: [{ Status: 'available', PercentProgress: 100 }] });
  const out: string[] = [];
  const deps: CliDeps = { clients: () => clients(), runtime: fakeRuntime(), out: (t) => out.push(t) };
  await expect(main(['snapshot', '--stack', CLUSTER], deps)).resolves.toBe(0);
  expect(out).toEqual([SNAP]);
  expect(ec2.commandCalls(CreateSnapshotCommand)).toHaveLength(0);
});
