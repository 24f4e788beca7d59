import { DescribeAlarmsCommand, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatStatus, getStatus, slopePerHour } from '../../lib/ops/status';
import { kitTempDir } from '../helpers/temp-dirs';
import { IMAGES, LATEST_ARM, LATEST_X86, RUNNING_AMI, imageMocks } from './image-fixtures';
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
  imageMocks(ec2);
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
  // Issue 28: the image's age, and what to do once it is older than 30 days.
  expect(text).toContain(
    `image              ${RUNNING_AMI}  ${IMAGES[0]!.Name}  (x86_64, created 2026-04-01, 61 days old)`,
  );
  const warning = `image ${RUNNING_AMI} is 61 days old: npm run ops -- image --update, then deploy`;
  expect(text).toContain(`warning: ${warning}`);
  expect(JSON.parse(JSON.stringify(report))).toMatchObject({
    warnings: [warning],
    image: { running: [{ ageDays: 61 }] },
  });
});

test('status: a fresh image gives no warning; a pinned image not deployed yet is named', async () => {
  const { ec2, cw } = mocks();
  ec2.on(DescribeInstancesCommand, { InstanceIds: [INSTANCE_ID] }).resolves({
    Reservations: [
      { Instances: [{ ...instanceResponse('running').Reservations[0]!.Instances[0]!, ImageId: LATEST_X86 }] },
    ],
  });
  imageMocks(ec2);
  cw.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
  cw.on(DescribeAlarmsCommand).resolves({});
  expect((await getStatus(clients(), fakeRuntime(), STACK)).warnings).toEqual([]);

  const file = path.join(kitTempDir('minnow-status-'), 'cdk.context.json');
  fs.writeFileSync(file, JSON.stringify({ 'minnow:Minnow:amiId': LATEST_ARM }));
  const report = await getStatus(clients(), fakeRuntime(), STACK, file);
  expect(report.warnings).toEqual([
    `${file} pins ${LATEST_ARM}, which is not deployed yet: the next deploy replaces the broker to boot it`,
  ]);
  expect(formatStatus(report)).toContain(`pinned image       ${LATEST_ARM}  (cdk.context.json)`);
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
