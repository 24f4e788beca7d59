import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  type GetMetricDataCommandInput,
} from '@aws-sdk/client-cloudwatch';
import { DescribeDBInstancesCommand } from '@aws-sdk/client-rds';
import { main, type CliDeps } from '../../bin/ops';
import { formatClusterStatus, getClusterStatus } from '../../lib/ops/cluster-status';
import { databaseIdFromEndpoint } from '../../lib/ops/database';
import { readStackKind } from '../../lib/ops/stack-outputs';
import {
  BROKER_IDS,
  BROKER_IPS,
  CLUSTER,
  DB_ENDPOINT,
  DB_ID,
  brokerResponse,
  clusterMocks,
  dbInstance,
} from './cluster-fixtures';
import { DescribeInstancesCommand, NOW, STACK, clients, fakeRuntime } from './fixtures';
import { IMAGES, RUNNING_AMI, imageMocks } from './image-fixtures';

const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);
const GIB = 1024 ** 3;

/** Two brokers, the second stopped; the database failing over with a class change pending. */
function failingOverCluster() {
  const m = clusterMocks();
  m.ec2.on(DescribeInstancesCommand, { InstanceIds: [BROKER_IDS[0]] }).resolves(brokerResponse(0, 'running'));
  m.ec2.on(DescribeInstancesCommand, { InstanceIds: [BROKER_IDS[1]] }).resolves(brokerResponse(1, 'stopped'));
  imageMocks(m.ec2);
  m.cw.on(GetMetricDataCommand).callsFake((input: GetMetricDataCommandInput) => {
    const query = input.MetricDataQueries?.[0];
    if (query?.Id === 'balance') {
      // Newest first, as CloudWatch returns them: 60 -> 30 over 3 hours.
      return {
        MetricDataResults: [
          { Id: 'balance', Timestamps: [minutesAgo(0), minutesAgo(90), minutesAgo(180)], Values: [30, 45, 60] },
        ],
      };
    }
    return {
      MetricDataResults: [{ Id: 'free', Timestamps: [minutesAgo(5), minutesAgo(10)], Values: [17.5 * GIB, 18 * GIB] }],
    };
  });
  m.rds
    .on(DescribeDBInstancesCommand, { DBInstanceIdentifier: DB_ID })
    .resolves(
      dbInstance({ DBInstanceStatus: 'failing-over', PendingModifiedValues: { DBInstanceClass: 'db.t4g.small' } }),
    );
  m.cw.on(DescribeAlarmsCommand, { AlarmNamePrefix: `${CLUSTER}-` }).resolves({
    MetricAlarms: [
      { AlarmName: 'MinnowCluster-broker-1-cpu-credit-balance-low', StateValue: 'OK' },
      {
        AlarmName: 'MinnowCluster-broker-2-broker-not-answering',
        StateValue: 'ALARM',
        StateReason: 'Threshold Crossed: 2 datapoints were less than the threshold (1.0)',
      },
      { AlarmName: 'MinnowCluster-broker-2-memory-used-high', StateValue: 'INSUFFICIENT_DATA' },
      { AlarmName: 'MinnowCluster-database-cpu-high', StateValue: 'OK' },
    ],
  });
  return m;
}

test('the stack kind comes from the outputs: DatabaseEndpoint makes a cluster', async () => {
  const m = clusterMocks();
  await expect(readStackKind(clients(), STACK)).resolves.toEqual({ kind: 'single' });
  await expect(readStackKind(clients(), CLUSTER)).resolves.toEqual({
    kind: 'cluster',
    instanceIds: [...BROKER_IDS],
    databaseEndpoint: DB_ENDPOINT,
    bootstrapServers: `${BROKER_IPS[0]}:9093,${BROKER_IPS[1]}:9093`,
  });
  m.cfn.on(DescribeStacksCommand, { StackName: 'Half' }).resolves({
    Stacks: [
      {
        StackName: 'Half',
        StackStatus: 'CREATE_IN_PROGRESS',
        CreationTime: NOW,
        Outputs: [{ OutputKey: 'DatabaseEndpoint', OutputValue: DB_ENDPOINT }],
      },
    ],
  });
  await expect(readStackKind(clients(), 'Half')).rejects.toThrow(
    'stack "Half" lacks its DatabaseEndpoint or InstanceIds output (status CREATE_IN_PROGRESS)',
  );
});

test('the database identifier is the first label of its endpoint', () => {
  expect(databaseIdFromEndpoint(DB_ENDPOINT)).toBe(DB_ID);
  expect(databaseIdFromEndpoint('mydb.abc.us-east-1.rds.amazonaws.com')).toBe('mydb');
  expect(() => databaseIdFromEndpoint(':5432')).toThrow('is not an RDS endpoint');
});

test('cluster status: every broker, the database failing over, the alarms in ALARM', async () => {
  const m = failingOverCluster();
  const kind = await readStackKind(clients(), CLUSTER);
  if (kind.kind !== 'cluster') throw new Error('expected a cluster');
  const report = await getClusterStatus(clients(), fakeRuntime(), CLUSTER, kind);

  expect(report.brokers.map((b) => [b.nodeId, b.instance.state, b.instance.publicIp])).toEqual([
    [1, 'running', BROKER_IPS[0]],
    [2, 'stopped', undefined],
  ]);
  expect(report.brokers[0]?.credits).toEqual({ balance: 30, trendPerHour: -10, hoursToEmpty: 3, points: 3 });
  // A stopped broker has no recent credit datapoints: not asked for.
  expect(report.brokers[1]?.credits).toBeUndefined();
  const metricQueries = m.cw.commandCalls(GetMetricDataCommand).map((c) => c.args[0].input.MetricDataQueries?.[0]);
  expect(metricQueries.map((q) => q?.MetricStat?.Metric?.Dimensions)).toEqual([
    [{ Name: 'InstanceId', Value: BROKER_IDS[0] }],
    [{ Name: 'DBInstanceIdentifier', Value: DB_ID }],
  ]);
  expect(metricQueries[1]?.MetricStat?.Metric?.MetricName).toBe('FreeStorageSpace');
  expect(report.database).toEqual({
    id: DB_ID,
    status: 'failing-over',
    instanceClass: 'db.t4g.micro',
    engine: 'postgres 16.4',
    multiAz: true,
    availabilityZone: 'eu-west-2a',
    secondaryAvailabilityZone: 'eu-west-2b',
    allocatedGiB: 20,
    freeStorageBytes: 17.5 * GIB,
    pendingModifications: { DBInstanceClass: 'db.t4g.small' },
  });
  expect(report.alarmsInAlarm).toEqual([
    {
      name: 'MinnowCluster-broker-2-broker-not-answering',
      reason: 'Threshold Crossed: 2 datapoints were less than the threshold (1.0)',
    },
  ]);
  expect(report.alarmStates).toEqual({ OK: 2, ALARM: 1, INSUFFICIENT_DATA: 1 });

  expect(formatClusterStatus(report).split('\n')).toEqual([
    'stack              MinnowCluster  (storage=postgres: 2 brokers, RDS PostgreSQL)',
    'bootstrap servers  198.51.100.7:9093,198.51.100.8:9093',
    'broker 1           i-0aaaaaaaaaaaaaaa1  running  t3.micro (x86_64)  eu-west-2a  198.51.100.7',
    '  CPU credits      30.0  (-10.0/h over the last 3 h, empty in ~3.0 h at this rate)',
    'broker 2           i-0aaaaaaaaaaaaaaa2  stopped  t3.micro (x86_64)  eu-west-2b  -',
    `database           ${DB_ID}  failing-over  db.t4g.micro  Multi-AZ (eu-west-2a, standby eu-west-2b)`,
    '  failing-over: the standby takes over (1-2 minutes); the brokers answer retriable errors meanwhile',
    `  endpoint         ${DB_ENDPOINT}  (postgres 16.4)`,
    '  storage          20 GiB, 17.5 GiB free',
    '  pending changes  DBInstanceClass=db.t4g.small',
    'alarms             1 of 4 in ALARM  (1 ALARM, 1 INSUFFICIENT_DATA, 2 OK)',
    '  ALARM            MinnowCluster-broker-2-broker-not-answering',
    `image              ${RUNNING_AMI}  ${IMAGES[0]!.Name}  (x86_64, created 2026-04-01, 61 days old)`,
    `warning: image ${RUNNING_AMI} is 61 days old: npm run ops -- image --update --stack MinnowCluster, then deploy`,
  ]);
  expect(report.warnings).toEqual([
    `image ${RUNNING_AMI} is 61 days old: npm run ops -- image --update --stack MinnowCluster, then deploy`,
  ]);
});

test('a single-AZ database without datapoints or pending changes, and no alarms', async () => {
  const m = clusterMocks();
  m.ec2.on(DescribeInstancesCommand).resolves(brokerResponse(0, 'running', 'm7i.large'));
  m.cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [{ Id: 'free', Timestamps: [], Values: [] }] });
  m.rds
    .on(DescribeDBInstancesCommand)
    .resolves(dbInstance({ MultiAZ: false, SecondaryAvailabilityZone: undefined, PendingModifiedValues: undefined }));
  m.cw.on(DescribeAlarmsCommand).resolves({});
  const kind = await readStackKind(clients(), CLUSTER);
  if (kind.kind !== 'cluster') throw new Error('expected a cluster');
  const text = formatClusterStatus(await getClusterStatus(clients(), fakeRuntime(), CLUSTER, kind));
  expect(text).toContain(`database           ${DB_ID}  available  db.t4g.micro  single-AZ (eu-west-2a)`);
  expect(text).toContain('  storage          20 GiB, free: no datapoints yet');
  expect(text).toContain('  pending changes  none');
  expect(text).toContain('alarms             none found');
  expect(text).not.toContain('CPU credits');
});

test('a broker EC2 no longer knows shows as not found; the others still show', async () => {
  const m = failingOverCluster();
  m.ec2
    .on(DescribeInstancesCommand, { InstanceIds: [BROKER_IDS[1]] })
    .rejects(Object.assign(new Error('The instance ID does not exist'), { name: 'InvalidInstanceID.NotFound' }));
  const kind = await readStackKind(clients(), CLUSTER);
  if (kind.kind !== 'cluster') throw new Error('expected a cluster');
  const text = formatClusterStatus(await getClusterStatus(clients(), fakeRuntime(), CLUSTER, kind));
  expect(text).toContain(`broker 1           ${BROKER_IDS[0]}  running  t3.micro`);
  expect(text).toContain(`broker 2           ${BROKER_IDS[1]}  not found\n`);
});

test('a database deleted outside CloudFormation: a clear error', async () => {
  const m = failingOverCluster();
  m.rds
    .on(DescribeDBInstancesCommand)
    .rejects(Object.assign(new Error(`DBInstance ${DB_ID} not found.`), { name: 'DBInstanceNotFoundFault' }));
  const kind = await readStackKind(clients(), CLUSTER);
  if (kind.kind !== 'cluster') throw new Error('expected a cluster');
  await expect(getClusterStatus(clients(), fakeRuntime(), CLUSTER, kind)).rejects.toThrow(
    `RDS instance ${DB_ID} not found: was it deleted outside CloudFormation?`,
  );
});

test('the alarms are read page by page', async () => {
  const m = failingOverCluster();
  m.cw
    .on(DescribeAlarmsCommand)
    .resolvesOnce({ MetricAlarms: [{ AlarmName: 'MinnowCluster-a', StateValue: 'ALARM' }], NextToken: 'p2' })
    .resolves({ MetricAlarms: [{ AlarmName: 'MinnowCluster-b', StateValue: 'ALARM' }] });
  const kind = await readStackKind(clients(), CLUSTER);
  if (kind.kind !== 'cluster') throw new Error('expected a cluster');
  const report = await getClusterStatus(clients(), fakeRuntime(), CLUSTER, kind);
  expect(report.alarmsInAlarm.map((a) => a.name)).toEqual(['MinnowCluster-a', 'MinnowCluster-b']);
  expect(m.cw.commandCalls(DescribeAlarmsCommand)[1]?.args[0].input).toMatchObject({ NextToken: 'p2' });
});

function run(argv: string[]) {
  const out: string[] = [];
  const runtime = fakeRuntime();
  const deps: CliDeps = { clients: () => clients(), runtime, out: (t) => out.push(t) };
  return main(argv, deps).then((code) => ({ code, out: out.join('\n'), err: runtime.lines.join('\n') }));
}

test('ops status --stack MinnowCluster prints the cluster; --json gives the report', async () => {
  failingOverCluster();
  const text = await run(['status', '--stack', CLUSTER]);
  expect(text.code).toBe(0);
  expect(text.out).toContain('broker 2           i-0aaaaaaaaaaaaaaa2  stopped');
  expect(text.out).toContain('failing-over');

  const json = await run(['status', '--stack', CLUSTER, '--json']);
  expect(json.code).toBe(0);
  const report = JSON.parse(json.out) as Record<string, unknown>;
  expect(report).toMatchObject({
    kind: 'cluster',
    stackName: CLUSTER,
    databaseEndpoint: DB_ENDPOINT,
    brokers: [
      { nodeId: 1, instance: { id: BROKER_IDS[0], state: 'running' }, credits: { balance: 30 } },
      { nodeId: 2, instance: { id: BROKER_IDS[1], state: 'stopped' } },
    ],
    database: { status: 'failing-over', multiAz: true, freeStorageBytes: 17.5 * GIB },
    alarmsInAlarm: [{ name: 'MinnowCluster-broker-2-broker-not-answering' }],
    alarmStates: { ALARM: 1 },
  });
});
