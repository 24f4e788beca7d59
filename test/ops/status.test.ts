import { DescribeAlarmsCommand, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { formatStatus, getStatus, slopePerHour } from '../../lib/ops/status';
import {
  DescribeInstancesCommand,
  EIP,
  INSTANCE_ID,
  NOW,
  STACK,
  clients,
  fakeRuntime,
  instanceResponse,
  mocks,
} from './fixtures';

const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);

test('status: state, type, address, credit balance with its trend, alarm states', async () => {
  const { ec2, cw } = mocks();
  ec2.on(DescribeInstancesCommand, { InstanceIds: [INSTANCE_ID] }).resolves(instanceResponse('running'));
  // CloudWatch returns newest first; 60 -> 30 credits over the last 3 hours: -10/h.
  cw.on(GetMetricDataCommand).resolves({
    MetricDataResults: [
      { Id: 'balance', Timestamps: [minutesAgo(0), minutesAgo(90), minutesAgo(180)], Values: [30, 45, 60] },
    ],
  });
  cw.on(DescribeAlarmsCommand, { AlarmNamePrefix: `${STACK}-` }).resolves({
    MetricAlarms: [
      { AlarmName: 'Minnow-cpu-credit-balance-low', StateValue: 'OK' },
      { AlarmName: 'Minnow-status-check-failed-system', StateValue: 'INSUFFICIENT_DATA' },
    ],
  });

  const report = await getStatus(clients(), fakeRuntime(), STACK);
  expect(report.instance).toMatchObject({ state: 'running', type: 't3.micro', publicIp: EIP });
  expect(report.credits).toEqual({ balance: 30, trendPerHour: -10, hoursToEmpty: 3, points: 3 });
  const query = cw.commandCalls(GetMetricDataCommand)[0]?.args[0].input;
  expect(query?.MetricDataQueries?.[0]?.MetricStat?.Metric).toEqual({
    Namespace: 'AWS/EC2',
    MetricName: 'CPUCreditBalance',
    Dimensions: [{ Name: 'InstanceId', Value: INSTANCE_ID }],
  });
  expect(query?.EndTime).toEqual(NOW);

  const text = formatStatus(report);
  expect(text).toContain(`instance           ${INSTANCE_ID}  running  t3.micro (x86_64)  eu-west-2a`);
  expect(text).toContain(`bootstrap servers  ${EIP}:9092`);
  expect(text).toContain('CPU credits        30.0  (-10.0/h over the last 3 h, empty in ~3.0 h at this rate)');
  expect(text).toMatch(/OK\s+Minnow-cpu-credit-balance-low/);
  expect(text).toMatch(/INSUFFICIENT_DATA\s+Minnow-status-check-failed-system/);
});

test('status of a non-burstable type asks CloudWatch for no credits', async () => {
  const { ec2, cw } = mocks();
  ec2.on(DescribeInstancesCommand).resolves(instanceResponse('running', 'm7g.large', 'arm64'));
  cw.on(DescribeAlarmsCommand).resolves({ MetricAlarms: [] });
  const report = await getStatus(clients(), fakeRuntime(), STACK);
  expect(report.credits).toBeUndefined();
  expect(cw.commandCalls(GetMetricDataCommand)).toHaveLength(0);
  expect(formatStatus(report)).not.toContain('CPU credits');
});

test('a new instance has no credit datapoints yet', async () => {
  const { ec2, cw } = mocks();
  ec2.on(DescribeInstancesCommand).resolves(instanceResponse('running'));
  cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [{ Id: 'balance', Timestamps: [], Values: [] }] });
  cw.on(DescribeAlarmsCommand).resolves({});
  const report = await getStatus(clients(), fakeRuntime(), STACK);
  expect(report.credits).toBeUndefined();
  expect(formatStatus(report)).toContain('no datapoints yet');
});

test('slopePerHour', () => {
  expect(slopePerHour([])).toBe(0);
  expect(slopePerHour([{ t: 0, v: 5 }])).toBe(0);
  expect(
    slopePerHour([
      { t: 0, v: 0 },
      { t: 1_800_000, v: 6 },
    ]),
  ).toBeCloseTo(12);
});
