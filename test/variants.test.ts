import { Match } from 'aws-cdk-lib/assertions';
import { REMEMBERED_ARM_IMAGE, buildApp, only, synthTemplate, userDataText } from './helpers/synth';

type AlarmProperties = {
  MetricName?: string;
  Metrics?: Array<{ MetricStat?: { Metric: { MetricName: string } } }>;
};
/** Each alarm's metric: its MetricName, or the metrics of its math expression. */
const alarmMetrics = (template: ReturnType<typeof synthTemplate>): string[] =>
  Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => {
    const p = (a as { Properties: AlarmProperties }).Properties;
    return (
      p.MetricName ?? (p.Metrics ?? []).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : [])).join()
    );
  });
/** The alarms every stack has, credits or not: status checks, memory, disks, the broker's liveness. */
const HOST_ALARM_METRICS = [
  'StatusCheckFailed_Instance',
  'StatusCheckFailed_System',
  'disk_used_percent',
  'disk_used_percent',
  'mem_used_percent',
  'minnow_database_bytes',
];

// The asset hash follows broker/ (which may change between two synths while someone works on it),
// never the instance type.
const masked = (template: ReturnType<typeof synthTemplate>): Template =>
  JSON.parse(JSON.stringify(template.toJSON()).replace(/[0-9a-f]{64}/g, '<asset-hash>')) as Template;
type Template = { Resources: Record<string, { Type: string; Properties: unknown }> };

describe('scaling up in place: -c instanceType=t3.small', () => {
  const before = masked(synthTemplate());
  const after = masked(synthTemplate({ instanceType: 't3.small' }));

  test('the data volume and Elastic IP keep their logical ids and properties', () => {
    for (const type of ['AWS::EC2::Volume', 'AWS::EC2::EIP']) {
      const pick = (t: typeof before) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);
      expect(pick(after)).toEqual(pick(before));
      expect(pick(before)).toHaveLength(1);
    }
  });

  test("a new release signal (the type is in the boot's identity): the association waits for it", () => {
    const ids = (t: typeof before, type: string) =>
      Object.keys(t.Resources).filter((id) => t.Resources[id]!.Type === type);
    const [conditionBefore] = ids(before, 'AWS::CloudFormation::WaitCondition');
    const [conditionAfter] = ids(after, 'AWS::CloudFormation::WaitCondition');
    expect(conditionAfter).not.toBe(conditionBefore);
    const [association] = ids(before, 'AWS::EC2::EIPAssociation');
    expect(ids(after, 'AWS::EC2::EIPAssociation')).toEqual([association]);
    expect(after.Resources[association!]!.Properties).toEqual(before.Resources[association!]!.Properties);
    expect((after.Resources[association!] as { DependsOn?: string[] }).DependsOn).toEqual([conditionAfter]);
  });

  test('the instance keeps its logical id; only InstanceType and the signal URL change (a stop/start, not a replacement)', () => {
    const instance = (t: typeof before) =>
      Object.entries(t.Resources).filter(([, r]) => r.Type === 'AWS::EC2::Instance');
    const [[idBefore, b]] = instance(before) as unknown as [[string, { Properties: Record<string, unknown> }]];
    const [[idAfter, a]] = instance(after) as unknown as [[string, { Properties: Record<string, unknown> }]];
    expect(idAfter).toBe(idBefore);
    expect(b.Properties.InstanceType).toBe('t3.micro');
    expect(a.Properties.InstanceType).toBe('t3.small');
    const handle = (t: typeof before) =>
      Object.keys(t.Resources).find((id) => t.Resources[id]!.Type === 'AWS::CloudFormation::WaitConditionHandle')!;
    const unsigned = (p: Record<string, unknown>, handleId: string) =>
      JSON.parse(JSON.stringify({ ...p, InstanceType: 'x' }).replaceAll(handleId, '<handle>')) as unknown;
    expect(unsigned(a.Properties, handle(after))).toEqual(unsigned(b.Properties, handle(before)));
  });

  test("everything else that changes is about credits (the alarm threshold, the dashboard's baseline) or the association's DependsOn", () => {
    const changed = Object.keys(before.Resources).filter(
      (id) => id in after.Resources && JSON.stringify(before.Resources[id]) !== JSON.stringify(after.Resources[id]),
    );
    const types = changed.map((id) => before.Resources[id]?.Type).sort();
    expect(types).toEqual([
      'AWS::CloudWatch::Alarm',
      'AWS::CloudWatch::Dashboard',
      'AWS::EC2::EIPAssociation',
      'AWS::EC2::Instance',
    ]);
    const replaced = Object.keys(before.Resources).filter((id) => !(id in after.Resources));
    expect(replaced.map((id) => before.Resources[id]?.Type).sort()).toEqual([
      'AWS::CloudFormation::WaitCondition',
      'AWS::CloudFormation::WaitConditionHandle',
    ]);
  });
});

test('-c dataSnapshotId creates the data volume from the snapshot', () => {
  const template = synthTemplate({ dataSnapshotId: 'snap-0123456789abcdef0', dataVolumeGiB: '50' });
  template.hasResource('AWS::EC2::Volume', {
    Properties: { SnapshotId: 'snap-0123456789abcdef0', Size: 50, Encrypted: true, VolumeType: 'gp3' },
    DeletionPolicy: 'Snapshot',
  });
});

test('-c cpuCredits=unlimited: unlimited spec, plus surplus-credit-balance and surplus-credits-charged alarms', () => {
  const template = synthTemplate({ cpuCredits: 'unlimited' });
  template.hasResourceProperties('AWS::EC2::Instance', { CreditSpecification: { CPUCredits: 'unlimited' } });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: 'CPUSurplusCreditsCharged',
    ComparisonOperator: 'GreaterThanThreshold',
    Threshold: 0,
    TreatMissingData: 'notBreaching',
  });
  expect(alarmMetrics(template).sort()).toEqual(
    ['CPUCreditBalance', 'CPUSurplusCreditBalance', 'CPUSurplusCreditsCharged', ...HOST_ALARM_METRICS].sort(),
  );
});

test('a non-burstable Graviton type (m7g.large): the pinned arm64 AMI, no credit spec, no credit alarms', () => {
  const template = synthTemplate({ instanceType: 'm7g.large', cpuCredits: 'unlimited', ...REMEMBERED_ARM_IMAGE });
  const [, instance] = only(template, 'AWS::EC2::Instance');
  expect(instance.Properties.InstanceType).toBe('m7g.large');
  expect(instance.Properties.CreditSpecification).toBeUndefined();
  expect(instance.Properties.ImageId).toBe(REMEMBERED_ARM_IMAGE['minnow:Minnow:amiId']);
  expect(alarmMetrics(template).sort()).toEqual([...HOST_ALARM_METRICS].sort());
  const [, dashboard] = only(template, 'AWS::CloudWatch::Dashboard');
  expect(JSON.stringify(dashboard.Properties.DashboardBody)).not.toContain('CPUCreditBalance');
});

test('a burstable Graviton type (t4g.small): the pinned arm64 AMI and credit alarms', () => {
  const template = synthTemplate({ instanceType: 't4g.small', ...REMEMBERED_ARM_IMAGE });
  template.hasResourceProperties('AWS::EC2::Instance', { ImageId: REMEMBERED_ARM_IMAGE['minnow:Minnow:amiId'] });
  expect(alarmMetrics(template)).toContain('CPUCreditBalance');
  expect(JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'))).toContain('IF(balance < 58 AND');
});

test('-c amiId moves the pinned image: still no SSM parameter', () => {
  const template = synthTemplate({ amiId: 'ami-0123456789abcdef0' });
  template.hasResourceProperties('AWS::EC2::Instance', { ImageId: 'ami-0123456789abcdef0' });
  expect(JSON.stringify(template.toJSON().Parameters)).not.toContain('ami-amazon-linux-latest');
});

test('-c alarmEmail subscribes the address to the alarm topic', () => {
  const template = synthTemplate({ alarmEmail: 'ops@example.com' });
  template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
});

test('-c allowPublic=true allows 0.0.0.0/0 on 9093 (SASL_SSL), still nothing else', () => {
  const template = synthTemplate({ allowedCidr: '0.0.0.0/0', allowPublic: 'true' });
  const [, sg] = only(template, 'AWS::EC2::SecurityGroup');
  expect(sg.Properties.SecurityGroupIngress).toEqual([
    expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 9093, ToPort: 9093 }),
  ]);
});

test('-c security=off: the old plaintext stack on 9092, no secret, no CA parameter, no grants for them', () => {
  const template = synthTemplate({ security: 'off' });
  const [eipId] = only(template, 'AWS::EC2::EIP');
  const [, sg] = only(template, 'AWS::EC2::SecurityGroup');
  expect(sg.Properties.SecurityGroupIngress).toEqual([
    expect.objectContaining({ CidrIp: '203.0.113.0/24', FromPort: 9092, ToPort: 9092, Description: 'Kafka clients' }),
  ]);
  template.resourceCountIs('AWS::SecretsManager::Secret', 0);
  template.resourceCountIs('AWS::SSM::Parameter', 0);
  // ssm: stays for the SSM agent (Session Manager), never the parameter actions.
  expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toMatch(/secretsmanager:|ssm:\w*Parameter/);
  const text = userDataText(template, { [eipId]: '198.51.100.7' });
  expect(text).toMatch(
    /MINNOW_PORT='9092'\nMINNOW_LOG_LEVEL='info'\nMINNOW_SECURITY='off'\nMINNOW_LOG_GROUP='[^']+'\n/,
  );
  expect(text).not.toMatch(/^MINNOW_(CA_PARAMETER|ADMIN_SECRET_ID)=/m);
  expect(text).toMatch(/^MINNOW_SIGNAL_URL=/m);
  template.hasOutput('BootstrapServers', {
    Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [eipId, 'PublicIp'] }, ':9092']] },
    Description: Match.stringLikeRegexp('PLAINTEXT without authentication'),
  });
  expect(Object.keys(template.toJSON().Outputs)).not.toContain('CaCertificateParameter');
});

describe('refusals, with a message that says what to pass', () => {
  test('missing allowedCidr', () => {
    expect(() => buildApp({ allowedCidr: '' })).toThrow(/missing context value allowedCidr.*-c allowedCidr=/);
  });
  test('an IPv6 block: the VPC and the instance have no IPv6, so the rule would admit nobody', () => {
    expect(() => buildApp({ allowedCidr: '2001:db8::/64' })).toThrow(/IPv6 block.*IPv4 only.*curl -4/);
  });
  test('0.0.0.0/0 without allowPublic', () => {
    expect(() => buildApp({ allowedCidr: '0.0.0.0/0' })).toThrow(/whole internet.*-c allowPublic=true/);
  });
});
