import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { buildApp } from './helpers/synth';

// cdk-nag v3 runs as a policy-validation plugin: any unacknowledged finding makes synth throw.
describe('cdk-nag AwsSolutions checks', () => {
  test.each([
    ['defaults', {}],
    ['security=off', { security: 'off' }],
    ['allowPublic', { allowedCidr: '0.0.0.0/0', allowPublic: 'true' }],
    ['unlimited credits + email', { cpuCredits: 'unlimited', alarmEmail: 'ops@example.com' }],
    [
      'Graviton, restored, pinned AMI',
      { instanceType: 'm7g.large', dataSnapshotId: 'snap-0123456789abcdef0', amiId: 'ami-0123456789abcdef0' },
    ],
  ])('synth does not throw with nag on: %s', (_name, context) => {
    const { app } = buildApp(context, { nag: true });
    expect(() => app.synth()).not.toThrow();
  });

  test('nag is really on: an SSH-open security group makes synth throw', () => {
    const { app, stack } = buildApp({}, { nag: true });
    const sg = new ec2.SecurityGroup(stack, 'Open', {
      vpc: ec2.Vpc.fromVpcAttributes(stack, 'V', { vpcId: 'vpc-1', availabilityZones: ['a'] }),
      description: 'x',
    });
    sg.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(22));
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => app.synth()).toThrow(/AwsSolutions-EC23/);
  });
});
