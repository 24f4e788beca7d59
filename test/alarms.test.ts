import type { Template } from 'aws-cdk-lib/assertions';
import { REMEMBERED_ARM_IMAGE, only, synthTemplate, userDataText } from './helpers/synth';

// The alarms of issue 14: alarm e-mails that are delivered (item 1), a credit alarm that does not
// fire after every launch (item 7) and fits the credit mode, the surplus balance in unlimited mode,
// memory, disks, the broker's liveness and the instance status check with a reboot.

type Resource = { Properties: Record<string, unknown> };
const alarmsOf = (t: Template) => Object.entries(t.findResources('AWS::CloudWatch::Alarm')) as [string, Resource][];
const alarmNamed = (t: Template, name: string): Record<string, unknown> => {
  const found = alarmsOf(t).find(([, a]) => a.Properties.AlarmName === name);
  if (!found) throw new Error(`no alarm ${name}; have ${alarmsOf(t).map(([, a]) => a.Properties.AlarmName)}`);
  return found[1].Properties;
};
const statements = (t: Template, type: string) =>
  Object.values(t.findResources(type)).flatMap(
    (p) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
  );

const standard = synthTemplate();
const unlimited = synthTemplate({ cpuCredits: 'unlimited' });
const graviton = synthTemplate({ instanceType: 'm7g.large', ...REMEMBERED_ARM_IMAGE });

describe('the alarm topic accepts what the alarms publish (item 1)', () => {
  test.each([
    ['standard', standard],
    ['unlimited', unlimited],
    ['m7g.large', graviton],
  ])('%s: cloudwatch.amazonaws.com may sns:Publish for exactly this stack’s alarms, in this account', (_n, t) => {
    const [topicId] = only(t, 'AWS::SNS::Topic');
    // The other Allow is EventBridge's, for the backup-failure rules (test/data-backup.test.ts).
    const allow = statements(t, 'AWS::SNS::TopicPolicy').filter(
      (s) => s.Effect === 'Allow' && !JSON.stringify(s.Principal).includes('events.amazonaws.com'),
    );
    expect(allow).toHaveLength(1);
    const [statement] = allow as [Record<string, unknown>];
    expect(statement.Principal).toEqual({ Service: 'cloudwatch.amazonaws.com' });
    expect(statement.Action).toBe('sns:Publish');
    expect(statement.Resource).toEqual({ Ref: topicId });
    const condition = statement.Condition as Record<string, Record<string, unknown>>;
    expect(condition.StringEquals).toEqual({ 'aws:SourceAccount': { Ref: 'AWS::AccountId' } });
    const arns = condition.ArnLike!['aws:SourceArn'] as unknown[];
    const alarmIds = alarmsOf(t).map(([id]) => id);
    expect(arns).toEqual(expect.arrayContaining(alarmIds.map((id) => ({ 'Fn::GetAtt': [id, 'Arn'] }))));
    expect(arns).toHaveLength(alarmIds.length);
    // Every alarm that notifies publishes to this topic, which now admits it.
    for (const [, alarm] of alarmsOf(t)) {
      expect(alarm.Properties.AlarmActions).toEqual(expect.arrayContaining([{ Ref: topicId }]));
    }
  });

  test('the enforceSSL Deny stays', () => {
    const deny = statements(standard, 'AWS::SNS::TopicPolicy').filter((s) => s.Effect === 'Deny');
    expect(deny).toEqual([
      expect.objectContaining({ Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    ]);
  });
});

describe('CPU credits (items 3 and 7)', () => {
  test('a new instance launches unlimited: no launch credits for T3, and a throttled first boot crawls', () => {
    for (const t of [standard, unlimited]) {
      const [, instance] = only(t, 'AWS::EC2::Instance');
      expect(instance.Properties.CreditSpecification).toEqual({ CPUCredits: 'unlimited' });
    }
    expect(only(graviton, 'AWS::EC2::Instance')[1].Properties.CreditSpecification).toBeUndefined();
  });

  test('the instance is told its configured mode and may set it on itself only (tag condition)', () => {
    expect(userDataText(standard)).toContain("MINNOW_CPU_CREDITS='standard'\n");
    expect(userDataText(unlimited)).toContain("MINNOW_CPU_CREDITS='unlimited'\n");
    expect(userDataText(graviton)).not.toMatch(/^MINNOW_CPU_CREDITS=/m);
    const [volumeId] = only(standard, 'AWS::EC2::Volume');
    const credit = statements(standard, 'AWS::IAM::Policy').filter((s) =>
      JSON.stringify(s.Action).includes('ModifyInstanceCreditSpecification'),
    );
    expect(credit).toEqual([
      {
        Action: 'ec2:ModifyInstanceCreditSpecification',
        Effect: 'Allow',
        Resource: { 'Fn::Join': ['', expect.arrayContaining([':instance/*'])] },
        Condition: { StringEquals: { 'aws:ResourceTag/minnow:data-volume': { Ref: volumeId } } },
      },
    ]);
    expect(JSON.stringify(graviton.findResources('AWS::IAM::Policy'))).not.toContain(
      'ModifyInstanceCreditSpecification',
    );
  });

  test('credit balance low: a math expression that stays quiet while the balance rises (a new instance earns 12/h)', () => {
    const alarm = alarmNamed(standard, 'Minnow-cpu-credit-balance-low');
    const metrics = alarm.Metrics as Array<Record<string, unknown>>;
    const expression = metrics.find((m) => m.Expression !== undefined)!;
    expect(expression.Expression).toBe('IF(balance < 29 AND DIFF(balance) <= 0, 1, 0)');
    expect(expression.ReturnData).not.toBe(false);
    expect(metrics.find((m) => m.Id === 'balance')).toMatchObject({
      ReturnData: false,
      MetricStat: {
        Metric: { Namespace: 'AWS/EC2', MetricName: 'CPUCreditBalance' },
        Stat: 'Minimum',
        Period: 300,
      },
    });
    expect(alarm).toMatchObject({
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      TreatMissingData: 'notBreaching',
    });
    expect(alarm.MetricName).toBeUndefined(); // not the old plain "balance < 29", which fired after every launch
  });

  test('its text fits the mode: throttling in standard, billing in unlimited', () => {
    const std = alarmNamed(standard, 'Minnow-cpu-credit-balance-low').AlarmDescription as string;
    const unl = alarmNamed(unlimited, 'Minnow-cpu-credit-balance-low').AlarmDescription as string;
    expect(std).toMatch(/throttled to baseline/);
    expect(std).not.toMatch(/billed/);
    expect(unl).toMatch(/surplus credits, billed .* instead of slowing down/);
    expect(unl).not.toMatch(/throttled/);
  });

  test('unlimited: CPUSurplusCreditBalance above one hour of earnings (12 on a t3.micro), and the charge', () => {
    const surplus = alarmNamed(unlimited, 'Minnow-cpu-surplus-credit-balance');
    expect(surplus).toMatchObject({
      Namespace: 'AWS/EC2',
      MetricName: 'CPUSurplusCreditBalance',
      Statistic: 'Maximum',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 12,
      TreatMissingData: 'notBreaching',
    });
    expect(surplus.AlarmDescription).toMatch(/billed at the end of 24 hours or when the instance stops/);
    alarmNamed(unlimited, 'Minnow-cpu-surplus-credits-charged');
    expect(JSON.stringify(standard.findResources('AWS::CloudWatch::Alarm'))).not.toMatch(/CPUSurplus/);
  });

  test('no credit alarms for a type without credits', () => {
    expect(JSON.stringify(graviton.findResources('AWS::CloudWatch::Alarm'))).not.toMatch(/CPUCredit|CPUSurplus/);
  });
});

describe('host and broker alarms (CloudWatch agent metrics, namespace minnow)', () => {
  const [instanceId] = only(standard, 'AWS::EC2::Instance');

  test('memory used above 85 % for 15 minutes', () => {
    expect(alarmNamed(standard, 'Minnow-memory-used-high')).toMatchObject({
      Namespace: 'minnow',
      MetricName: 'mem_used_percent',
      Dimensions: [{ Name: 'InstanceId', Value: { Ref: instanceId } }],
      Threshold: 85,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      Period: 300,
    });
  });

  test.each([
    ['root', '/'],
    ['data', '/data'],
  ])('%s disk used above 80 %%', (name, mountPath) => {
    const alarm = alarmNamed(standard, `Minnow-${name}-disk-used-high`);
    expect(alarm).toMatchObject({ Namespace: 'minnow', MetricName: 'disk_used_percent', Threshold: 80 });
    expect(alarm.Dimensions).toEqual(
      expect.arrayContaining([
        { Name: 'InstanceId', Value: { Ref: instanceId } },
        { Name: 'path', Value: mountPath },
        { Name: 'fstype', Value: 'xfs' },
      ]),
    );
  });

  test('liveness: no scrape of the broker for 10 minutes is an alarm (missing data breaches)', () => {
    expect(alarmNamed(standard, 'Minnow-broker-not-answering')).toMatchObject({
      Namespace: 'minnow',
      MetricName: 'minnow_database_bytes',
      Statistic: 'SampleCount',
      Period: 60,
      EvaluationPeriods: 10,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
  });

  test('StatusCheckFailed_Instance reboots the instance and notifies; the system check still recovers', () => {
    const [topicId] = only(standard, 'AWS::SNS::Topic');
    const action = (verb: string) => ({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':automate:', { Ref: 'AWS::Region' }, `:ec2:${verb}`]],
    });
    expect(alarmNamed(standard, 'Minnow-status-check-failed-instance')).toMatchObject({
      Namespace: 'AWS/EC2',
      MetricName: 'StatusCheckFailed_Instance',
      AlarmActions: [action('reboot'), { Ref: topicId }],
    });
    expect(alarmNamed(standard, 'Minnow-status-check-failed-system')).toMatchObject({
      AlarmActions: [action('recover'), { Ref: topicId }],
    });
  });
});
