import type { Template } from 'aws-cdk-lib/assertions';
import { synthClusterTemplate } from './helpers/synth-cluster';
import { waitsFor } from './helpers/template-graph';

// -c storage=postgres: every change of the brokers' boot rolls through them one at a time, each
// broker once the one before answered, and each Elastic IP moves once its own broker answered (issue 28).
// The image is always a literal AMI id remembered in cdk.context.json; these tests pin one.
const BASE = { amiId: 'ami-0123456789abcdef0', brokers: '3' } as const;

type Resource = { Type: string; DependsOn?: string[] };
interface Broker {
  readonly instance: string;
  readonly condition: string;
  readonly association: string;
}
/** Each broker's instance, wait condition and EIP association (logical ids), node ids 1..N in order. */
const brokersOf = (template: Template): Broker[] => {
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const find = (prefix: string, type: string): string => {
    const ids = Object.keys(resources).filter((id) => id.startsWith(prefix) && resources[id]!.Type === type);
    if (ids.length !== 1) throw new Error(`expected one ${type} under ${prefix}, found ${ids.join(', ') || 'none'}`);
    return ids[0]!;
  };
  return [1, 2, 3].map((n) => ({
    instance: find(`Broker${n}Instance`, 'AWS::EC2::Instance'),
    condition: find(`Broker${n}Release`, 'AWS::CloudFormation::WaitCondition'),
    association: find(`Broker${n}EipAssociation`, 'AWS::EC2::EIPAssociation'),
  }));
};
const dependsOn = (template: Template, id: string): string[] =>
  (template.toJSON().Resources as Record<string, Resource>)[id]!.DependsOn ?? [];
const databaseOf = (template: Template): string => Object.keys(template.findResources('AWS::RDS::DBInstance'))[0]!;

/** The ordering every deploy of the cluster must have, whatever it changes. */
const expectRolling = (template: Template): void => {
  const brokers = brokersOf(template);
  brokers.forEach((broker, i) => {
    expect(dependsOn(template, broker.association)).toContain(broker.condition);
    const previous = brokers[i - 1];
    if (previous) {
      expect(dependsOn(template, broker.instance)).toEqual(
        expect.arrayContaining([previous.instance, previous.condition]),
      );
      expect(dependsOn(template, broker.condition)).toContain(previous.condition);
    } else {
      expect(dependsOn(template, broker.condition)).toContain(databaseOf(template));
    }
    // A condition listens before its instance boots: it never waits for it (nor for its address).
    expect(waitsFor(template, broker.condition, broker.instance)).toBe(false);
    expect(waitsFor(template, broker.condition, broker.association)).toBe(false);
  });
};

const base = synthClusterTemplate(BASE);

test('brokers boot one after another, broker 1 once the database exists; each address moves once its broker answered', () => {
  expectRolling(base);
  const [first, second] = brokersOf(base);
  // Broker 1 never waits for a later broker.
  expect(waitsFor(base, first!.instance, second!.condition)).toBe(false);
  expect(waitsFor(base, first!.condition, second!.condition)).toBe(false);
});

test.each([
  ['amiId', 'ami-0fedcba9876543210'],
  ['instanceType', 't3.small'],
  ['logLevel', 'debug'],
])('-c %s=%s: every broker gets a new condition, and the update rolls through them in order', (key, value) => {
  const changed = synthClusterTemplate({ ...BASE, [key]: value });
  const before = brokersOf(base);
  const after = brokersOf(changed);
  after.forEach((broker, i) => {
    expect(broker.condition).not.toBe(before[i]!.condition);
    expect(broker.instance).toBe(before[i]!.instance); // the same instance, stopped/started or replaced in turn
  });
  expectRolling(changed);
});

test('-c alarmEmail=...: no broker restarts (the same conditions)', () => {
  const same = synthClusterTemplate({ ...BASE, alarmEmail: 'ops@example.com' });
  expect(brokersOf(same).map((b) => b.condition)).toEqual(brokersOf(base).map((b) => b.condition));
});

test("every broker's subnet gives a launch-time public address: the boot reaches dnf and S3 before its Elastic IP, which waits for it", () => {
  const subnets = Object.entries(base.findResources('AWS::EC2::Subnet')) as [
    string,
    { Properties: { MapPublicIpOnLaunch?: boolean } },
  ][];
  const instances = Object.values(base.findResources('AWS::EC2::Instance')) as {
    Properties: { SubnetId: { Ref: string } };
  }[];
  expect(instances).toHaveLength(3);
  for (const instance of instances) {
    const subnet = subnets.find(([id]) => id === instance.Properties.SubnetId.Ref);
    expect(subnet?.[1].Properties.MapPublicIpOnLaunch).toBe(true);
  }
});
