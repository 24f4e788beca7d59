import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from './helpers/synth';

// cdk-nag v3 runs as a policy-validation plugin: any unacknowledged finding makes synth throw.
describe('cdk-nag AwsSolutions checks', () => {
  test.each([
    ['defaults', {}],
    ['security=off', { security: 'off' }],
    // `cdk bootstrap --qualifier`: nothing may name the default qualifier's bucket.
    ['a custom bootstrap qualifier', { '@aws-cdk/core:bootstrapQualifier': 'acme12345' }],
    ['allowPublic', { allowedCidr: '0.0.0.0/0', allowPublic: 'true' }],
    ['unlimited credits + email', { cpuCredits: 'unlimited', alarmEmail: 'ops@example.com' }],
    [
      'Graviton, restored, pinned AMI',
      { instanceType: 'm7g.large', dataSnapshotId: 'snap-0123456789abcdef0', amiId: 'ami-0123456789abcdef0' },
    ],
    [
      'customer-managed volume key, no scheduled snapshots',
      {
        dataVolumeKmsKeyArn: 'arn:aws:kms:eu-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
        snapshotRetentionDays: '0',
      },
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

  test('the instance may read its one release object, nothing else of the asset bucket', () => {
    const { stack } = buildApp({ '@aws-cdk/core:bootstrapQualifier': 'acme12345' });
    const policies = Template.fromStack(stack).findResources('AWS::IAM::Policy');
    const s3 = Object.values(policies)
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
      .filter((st) => [st.Action].flat().some((a) => a.startsWith('s3:')));
    expect(s3).toHaveLength(1);
    expect(s3[0]!.Action).toBe('s3:GetObject');
    const resource = JSON.stringify(s3[0]!.Resource);
    expect(resource).toContain('acme12345');
    expect(resource).toMatch(/\.zip"/); // the object key, not "/*"
    expect(resource).not.toContain('/*');
  });
});
