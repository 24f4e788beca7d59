// The ops CLI against moto's server on a storage=postgres cluster seeded by seed.ts: two brokers
// and an RDS PostgreSQL instance. What moto could not cover is listed in single-stack.test.ts's
// header; here also: RDS snapshots are "available" at once (the wait loop is the mock tests'), and
// there are no AWS/RDS metrics (FreeStorageSpace has no datapoints).
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { DescribeDBSnapshotsCommand } from '@aws-sdk/client-rds';
import { ListCommandsCommand } from '@aws-sdk/client-ssm';
import { describeWithTools } from '../../../broker/test/support/external-tools';
import { runOps } from './cli-runner';
import { REGION, startMotoServer, useFakeCredentials, type MotoServer } from './moto-server';
import { ZONE, seedCluster, type SeededCluster } from './seed';

const STACK = 'MinnowCluster';

describeWithTools('python3-venv')('ops CLI against moto (storage=postgres cluster)', () => {
  let moto: MotoServer;
  let cluster: SeededCluster;
  const ops = (...argv: string[]) => runOps(moto.clients, [...argv, '--stack', STACK, '--region', REGION]);

  beforeAll(async () => {
    useFakeCredentials();
    moto = await startMotoServer();
    cluster = await seedCluster(moto.clients(), STACK, 2, new Date());
  }, 600_000);

  afterAll(async () => {
    await moto?.stop();
  });

  test('status: every broker, the database and the alarms in ALARM', async () => {
    const { code, out, err } = await ops('status');
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const [b1, b2] = cluster.brokers;
    expect(out).toContain(`stack              ${STACK}  (storage=postgres: 2 brokers, RDS PostgreSQL)`);
    expect(out).toContain(`broker 1           ${b1?.instanceId}  running  t3.micro (x86_64)  ${ZONE}  ${b1?.publicIp}`);
    expect(out).toContain(`broker 2           ${b2?.instanceId}  running  t3.micro (x86_64)  ${ZONE}  ${b2?.publicIp}`);
    expect(out).toContain(`database           ${cluster.databaseId}  available  db.t4g.micro  single-AZ (${ZONE})`);
    expect(out).toContain(`  endpoint         ${cluster.databaseEndpoint}  (postgres 17.4)`);
    expect(out).toContain('  storage          20 GiB, free: no datapoints yet');
    expect(out).toContain('alarms             2 of 2 in ALARM  (2 ALARM)');
  });

  test('status --json', async () => {
    const { code, out } = await ops('status', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({
      kind: 'cluster',
      databaseEndpoint: cluster.databaseEndpoint,
      brokers: cluster.brokers.map((b, i) => ({
        nodeId: i + 1,
        instance: { id: b.instanceId, state: 'running' },
        credits: { balance: 78 },
      })),
      database: { id: cluster.databaseId, status: 'available', engine: 'postgres 17.4', multiAz: false },
    });
  });

  test('snapshot: an RDS snapshot of the database, tagged, waited for', async () => {
    const { code, out } = await ops('snapshot');
    expect(code).toBe(0);
    expect(out).toMatch(/^minnowcluster-\d{8}-\d{6}$/);
    const r = await moto.clients().rds.send(new DescribeDBSnapshotsCommand({ DBSnapshotIdentifier: out }));
    expect(r.DBSnapshots?.[0]).toMatchObject({ DBInstanceIdentifier: cluster.databaseId, Status: 'available' });
    expect(r.DBSnapshots?.[0]?.TagList).toEqual(expect.arrayContaining([{ Key: 'minnow:stack', Value: STACK }]));
  });

  test('rollback: minnow-rollback on each broker in turn', async () => {
    const { code, err } = await ops('rollback');
    expect(code).toBe(0);
    const [b1, b2] = cluster.brokers;
    const order = [`broker 1 of 2 (${b1?.instanceId})`, `broker 2 of 2 (${b2?.instanceId})`];
    const positions = order.map((line) => err.indexOf(line));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(err.indexOf(order[0] ?? '')).toBeGreaterThanOrEqual(0);
    // One SendCommand per broker. moto 5.2.6 lists every command's InstanceIds as all instances
    // seen (and ignores ListCommands' InstanceId filter), so which command went where is read
    // from the CLI's log above, not from moto.
    const listed = await moto.clients().ssm.send(new ListCommandsCommand({}));
    expect(listed.Commands?.map((c) => c.Parameters?.commands)).toEqual([
      ['/usr/local/sbin/minnow-rollback'],
      ['/usr/local/sbin/minnow-rollback'],
    ]);
  });

  test('scale --apply is refused on a cluster; the brokers keep their type', async () => {
    const { code, err } = await ops('scale', '--to', 't3.small', '--apply');
    expect(code).toBe(1);
    expect(err).toContain('scale --apply works on single-instance stacks only');
    const ids = cluster.brokers.map((b) => b.instanceId);
    const r = await moto.clients().ec2.send(new DescribeInstancesCommand({ InstanceIds: ids }));
    const types = (r.Reservations ?? []).flatMap((res) => res.Instances ?? []).map((i) => i.InstanceType);
    expect(types).toEqual(['t3.micro', 't3.micro']);
  });
});
