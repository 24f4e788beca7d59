import { App } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { readConfig } from '../lib/config';
import { DATABASE_CONNECTIONS_ALARM, DATABASE_FREE_STORAGE_ALARM_BYTES } from '../lib/postgres-stack';
import { CLUSTER_CONTEXT, buildCluster, synthClusterTemplate } from './helpers/synth-cluster';
import { REMEMBERED_ARM_IMAGE, TEST_AMI_ID, flatten, only, synthTemplate } from './helpers/synth';
import { kitTempDir } from './helpers/temp-dirs';

// -c storage=postgres (lib/postgres-stack.ts): N brokers on one RDS PostgreSQL.

type Resource = { Type: string; Properties: Record<string, unknown> } & Record<string, unknown>;
const resources = (template: Template, type: string): [string, Resource][] =>
  Object.entries(template.findResources(type)) as [string, Resource][];
/** Each instance's user data as text, intrinsics as readable placeholders, keyed by logical id. */
const userData = (template: Template): Record<string, string> =>
  Object.fromEntries(
    resources(template, 'AWS::EC2::Instance').map(([id, r]) => [
      id,
      flatten((r.Properties.UserData as { 'Fn::Base64': unknown })['Fn::Base64'], {}),
    ]),
  );

describe('the default: 2 brokers, db.t4g.micro, single-AZ, deletion protection', () => {
  const template = synthClusterTemplate();

  test('RDS PostgreSQL 16, gp3 20 GiB encrypted, 7 days of backups, private, kept as a snapshot', () => {
    template.hasResource('AWS::RDS::DBInstance', {
      Properties: {
        Engine: 'postgres',
        EngineVersion: '16',
        DBInstanceClass: 'db.t4g.micro',
        AllocatedStorage: '20',
        StorageType: 'gp3',
        StorageEncrypted: true,
        BackupRetentionPeriod: 7,
        DeletionProtection: true,
        MultiAZ: false,
        PubliclyAccessible: false,
        DBName: 'minnow',
      },
      DeletionPolicy: 'Snapshot',
    });
    template.hasResourceProperties('AWS::RDS::DBParameterGroup', {
      Family: 'postgres16',
      Parameters: { 'rds.force_ssl': '1' },
    });
  });

  test('storage grows on its own up to 4x the allocated 20 GiB (RDS storage autoscaling)', () => {
    template.hasResourceProperties('AWS::RDS::DBInstance', { AllocatedStorage: '20', MaxAllocatedStorage: 80 });
    synthClusterTemplate({ dbStorageGiB: 50 }).hasResourceProperties('AWS::RDS::DBInstance', {
      MaxAllocatedStorage: 200,
    });
  });

  test("the exported postgresql log keeps the stack's logRetentionDays, not forever", () => {
    const [, db] = only(template, 'AWS::RDS::DBInstance');
    expect(db.Properties.EnableCloudwatchLogsExports).toEqual(['postgresql']);
    // RDS creates the group itself on first export; CDK's LogRetention sets its retention.
    template.hasResourceProperties('Custom::LogRetention', {
      LogGroupName: {
        'Fn::Join': ['', ['/aws/rds/instance/', { Ref: Match.stringLikeRegexp('^DatabaseInstance') }, '/postgresql']],
      },
      RetentionInDays: 30,
    });
    synthClusterTemplate({ logRetentionDays: 90 }).hasResourceProperties('Custom::LogRetention', {
      RetentionInDays: 90,
    });
  });

  test('the database is in the isolated subnets, one per zone', () => {
    const [, group] = only(template, 'AWS::RDS::DBSubnetGroup');
    const ids = (group.Properties.SubnetIds as { Ref: string }[]).map((s) => s.Ref);
    expect(ids).toHaveLength(2);
    expect(ids.every((id) => /DatabaseSubnet/.test(id))).toBe(true);
    const zones = ids.map(
      (id) => (template.toJSON().Resources[id].Properties as { AvailabilityZone: string }).AvailabilityZone,
    );
    expect(zones.sort()).toEqual(['eu-west-2a', 'eu-west-2b']);
    // Isolated: no route to the internet gateway from the database subnets.
    for (const [, route] of resources(template, 'AWS::EC2::Route')) {
      expect(JSON.stringify(route.Properties.RouteTableId)).not.toMatch(/DatabaseSubnet/);
    }
    expect(resources(template, 'AWS::EC2::NatGateway')).toEqual([]);
  });

  test('the credentials are generated into Secrets Manager, and the master password is a dynamic reference', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({
        GenerateStringKey: 'password',
        SecretStringTemplate: '{"username":"minnow"}',
      }),
    });
    template.hasResourceProperties('AWS::SecretsManager::SecretTargetAttachment', {
      TargetType: 'AWS::RDS::DBInstance',
    });
    const [, db] = only(template, 'AWS::RDS::DBInstance');
    expect(JSON.stringify(db.Properties.MasterUserPassword)).toContain('{{resolve:secretsmanager:');
  });

  test("the database admits 5432 from the brokers' security group and nothing else", () => {
    const [dbGroupId, dbGroup] = resources(template, 'AWS::EC2::SecurityGroup').find(([id]) =>
      id.startsWith('DatabaseSecurityGroup'),
    )!;
    const [brokersGroupId] = resources(template, 'AWS::EC2::SecurityGroup').find(([id]) =>
      id.startsWith('BrokersSecurityGroup'),
    )!;
    expect(dbGroup.Properties.SecurityGroupIngress).toBeUndefined();
    const ingress = resources(template, 'AWS::EC2::SecurityGroupIngress')
      .map(([, r]) => r.Properties)
      .filter((p) => JSON.stringify(p.GroupId).includes(dbGroupId));
    expect(ingress).toEqual([
      expect.objectContaining({
        IpProtocol: 'tcp',
        FromPort: 5432,
        ToPort: 5432,
        SourceSecurityGroupId: { 'Fn::GetAtt': [brokersGroupId, 'GroupId'] },
      }),
    ]);
    // Nothing out of the database (CDK's "disallow all" placeholder rule).
    expect(dbGroup.Properties.SecurityGroupEgress).toEqual([expect.objectContaining({ CidrIp: '255.255.255.255/32' })]);
  });

  test("brokers share one group: Kafka from allowedCidr in; HTTPS and the database's 5432 out", () => {
    const [, group] = resources(template, 'AWS::EC2::SecurityGroup').find(([id]) =>
      id.startsWith('BrokersSecurityGroup'),
    )!;
    expect(group.Properties.SecurityGroupIngress).toEqual([
      expect.objectContaining({ CidrIp: '203.0.113.0/24', FromPort: 9093, ToPort: 9093 }),
    ]);
    template.hasResourceProperties('AWS::EC2::SecurityGroupEgress', { FromPort: 5432, ToPort: 5432 });
    for (const [, instance] of resources(template, 'AWS::EC2::Instance')) {
      expect(instance.Properties.SecurityGroupIds).toEqual([
        { 'Fn::GetAtt': [expect.stringMatching(/^BrokersSecurityGroup/), 'GroupId'] },
      ]);
    }
  });

  test('two t3.micro brokers in two zones, each with its Elastic IP and a 1 GiB volume in its zone', () => {
    const instances = resources(template, 'AWS::EC2::Instance');
    expect(instances).toHaveLength(2);
    expect(instances.map(([, i]) => i.Properties.InstanceType)).toEqual(['t3.micro', 't3.micro']);
    expect(instances.map(([, i]) => i.Properties.AvailabilityZone).sort()).toEqual(['eu-west-2a', 'eu-west-2b']);
    expect(resources(template, 'AWS::EC2::EIP')).toHaveLength(2);
    expect(resources(template, 'AWS::EC2::EIPAssociation')).toHaveLength(2);
    const volumes = resources(template, 'AWS::EC2::Volume');
    expect(volumes.map(([, v]) => [v.Properties.Size, v.Properties.Encrypted, v.Properties.AvailabilityZone])).toEqual([
      [1, true, 'eu-west-2a'],
      [1, true, 'eu-west-2b'],
    ]);
  });

  test('each user data names its node id and the database secret, and holds no password', () => {
    const texts = Object.values(userData(template));
    const [secretId] = resources(template, 'AWS::SecretsManager::SecretTargetAttachment')[0]!;
    expect(texts.map((t) => /MINNOW_NODE_ID='(\d+)'/.exec(t)?.[1]).sort()).toEqual(['1', '2']);
    for (const text of texts) {
      expect(text).toContain(`MINNOW_DATABASE_SECRET_ID='<{"Ref":"${secretId}"}>'`);
      expect(text).toMatch(/MINNOW_CA_SECRET_ID='<\{"Ref":"SecuritySharedCa/);
      expect(text).not.toContain('resolve:secretsmanager');
      expect(text).not.toMatch(/PGPASSWORD|STORAGE_ENGINE=postgres/);
      // Every setting is a literal or a reference (a name, an ARN, an address), never a secret's value.
      const settings = (text.split('MINNOW_SETTINGS')[1] ?? '').replace(/^'\n/, '').trim().split('\n');
      expect(settings.length).toBeGreaterThan(10);
      for (const line of settings) {
        expect(line).toMatch(
          /^MINNOW_[A-Z_]+='([^'<]*|<\{"(Ref|Fn::GetAtt)":[^{}]*\}>|[^']*\$\{AWS::[A-Za-z]+\}[^']*)'$/,
        );
      }
      expect(Buffer.byteLength(text)).toBeLessThan(14 * 1024);
    }
  });

  test('each instance role may read the database secret (and the shared CA), nothing broader', () => {
    const [secretId] = resources(template, 'AWS::SecretsManager::SecretTargetAttachment')[0]!;
    const policies = resources(template, 'AWS::IAM::Policy').filter(([id]) => /^Broker\d+Role/.test(id));
    expect(policies).toHaveLength(2);
    for (const [, policy] of policies) {
      const statements = (policy.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] })
        .Statement;
      const secretReads = statements.filter((s) => [s.Action].flat().includes('secretsmanager:GetSecretValue'));
      expect(secretReads.map((s) => JSON.stringify(s.Resource))).toContainEqual(JSON.stringify({ Ref: secretId }));
      for (const s of secretReads) expect(JSON.stringify(s.Resource)).not.toContain('*');
    }
  });

  test('outputs: every broker in the bootstrap list, the database endpoint and secret', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const bootstrap = JSON.stringify(outputs.BootstrapServers!.Value);
    expect(bootstrap).toContain('Broker1Eip');
    expect(bootstrap).toContain('Broker2Eip');
    expect((outputs.BootstrapServers!.Value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][0]).toBe(',');
    expect(JSON.stringify(outputs.DatabaseEndpoint!.Value)).toContain('Endpoint.Address');
    expect(outputs.DatabaseSecretArn!.Value).toEqual({
      Ref: expect.stringMatching(/DatabaseInstanceSecret.*Attachment/),
    });
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining([
        'InstanceIds',
        'AlarmTopicArn',
        'BrokerLogGroup',
        'CaCertificateParameter',
        'AdminSecretArn',
      ]),
    );
  });

  test('alarms: the database CPU, free storage and connections; every broker the single instance ones', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/RDS',
      MetricName: 'CPUUtilization',
      ComparisonOperator: 'GreaterThanThreshold',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'FreeStorageSpace',
      Threshold: DATABASE_FREE_STORAGE_ALARM_BYTES,
      ComparisonOperator: 'LessThanThreshold',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'DatabaseConnections',
      Threshold: DATABASE_CONNECTIONS_ALARM,
    });
    const alarms = resources(template, 'AWS::CloudWatch::Alarm');
    const names = alarms.map(([, a]) => a.Properties.AlarmName as string);
    expect(new Set(names).size).toBe(names.length);
    const single = resources(synthTemplate(), 'AWS::CloudWatch::Alarm').length;
    expect(alarms).toHaveLength(2 * single + 3);
    expect(names.filter((n) => n.startsWith('MinnowCluster-broker-1-'))).toHaveLength(single);
    // One topic, and it lets every alarm publish.
    expect(resources(template, 'AWS::SNS::Topic')).toHaveLength(1);
    const [, policy] = only(template, 'AWS::SNS::TopicPolicy');
    const allowed = JSON.stringify(policy.Properties.PolicyDocument);
    for (const [id] of alarms) expect(allowed).toContain(id);
  });
});

test('-c brokers=3 -c multiAz=true -c dbInstanceType=db.t4g.small: three brokers over two zones, Multi-AZ', () => {
  const template = synthClusterTemplate({ brokers: '3', multiAz: 'true', dbInstanceType: 'db.t4g.small' });
  template.hasResourceProperties('AWS::RDS::DBInstance', { MultiAZ: true, DBInstanceClass: 'db.t4g.small' });
  const zones = resources(template, 'AWS::EC2::Instance').map(([, i]) => i.Properties.AvailabilityZone);
  expect(zones).toEqual(['eu-west-2a', 'eu-west-2b', 'eu-west-2a']);
  expect(resources(template, 'AWS::EC2::EIP')).toHaveLength(3);
  expect(Object.values(userData(template)).map((t) => /MINNOW_NODE_ID='(\d+)'/.exec(t)?.[1])).toEqual(['1', '2', '3']);
});

test("-c migrationSnapshotId: broker 1's /data is the single instance's volume, at the snapshot's size", () => {
  const template = synthClusterTemplate({ migrationSnapshotId: 'snap-0123456789abcdef0' });
  const volumes = resources(template, 'AWS::EC2::Volume').map(([id, v]) => [id, v.Properties]);
  expect(volumes).toEqual([
    [expect.stringMatching(/^Broker1Data/), expect.objectContaining({ SnapshotId: 'snap-0123456789abcdef0' })],
    [expect.stringMatching(/^Broker2Data/), expect.objectContaining({ Size: 1 })],
  ]);
  expect(volumes[0]![1]).not.toHaveProperty('Size');
  expect(volumes[1]![1]).not.toHaveProperty('SnapshotId');
});

test('-c dbDeletionProtection=false turns it off (the documented way to delete the stack)', () => {
  const template = synthClusterTemplate({ dbDeletionProtection: 'false' });
  template.hasResourceProperties('AWS::RDS::DBInstance', { DeletionProtection: false });
});

test('security=off: plaintext 9092 on the brokers, no shared CA secret', () => {
  const template = synthClusterTemplate({ security: 'off' });
  for (const text of Object.values(userData(template))) {
    expect(text).toContain("MINNOW_SECURITY='off'");
    expect(text).not.toContain('MINNOW_CA_SECRET_ID');
  }
  template.hasResourceProperties('AWS::EC2::SecurityGroup', {
    SecurityGroupIngress: [Match.objectLike({ FromPort: 9092, CidrIp: '203.0.113.0/24' })],
  });
});

describe('cdk-nag AwsSolutions on the cluster', () => {
  test.each([
    ['defaults', {}],
    ['Multi-AZ, 3 brokers, unprotected', { multiAz: 'true', brokers: '3', dbDeletionProtection: 'false' }],
    ['security=off, public', { security: 'off', allowedCidr: '0.0.0.0/0', allowPublic: 'true' }],
    [
      'three zones, Graviton brokers',
      { availabilityZones: 'eu-west-2a,eu-west-2b,eu-west-2c', instanceType: 't4g.small', ...REMEMBERED_ARM_IMAGE },
    ],
  ])('synth does not throw with nag on: %s', (_name, context) => {
    const { app } = buildCluster(context, { nag: true });
    expect(() => app.synth()).not.toThrow();
  });
});

describe('context values', () => {
  const read = (context: Record<string, unknown>) =>
    readConfig(new App({ outdir: kitTempDir('minnow-cdk-'), context: { ...CLUSTER_CONTEXT, ...context } }).node);

  test('defaults', () => {
    expect(read({}).postgres).toEqual({
      availabilityZones: ['eu-west-2a', 'eu-west-2b'],
      brokers: 2,
      dbInstanceType: 'db.t4g.micro',
      multiAz: false,
      dbDeletionProtection: true,
      dbStorageGiB: 20,
    });
  });

  test.each([
    [{ availabilityZones: undefined }, /missing context value availabilityZones/],
    [{ availabilityZones: 'eu-west-2a' }, /two or more different zones/],
    [{ availabilityZones: 'eu-west-2a,eu-west-2a' }, /two or more different zones/],
    [{ availabilityZones: 'eu-west-2a,us-east-1a' }, /one region/],
    [{ brokers: '1' }, /from 2 to 9/],
    [{ brokers: 'two' }, /from 2 to 9/],
    [{ dbInstanceType: 't4g.micro' }, /not an RDS instance class/],
    [{ dbStorageGiB: '10' }, /from 20/],
    [{ multiAz: 'yes' }, /not a boolean/],
    [{ migrationSnapshotId: 'vol-0123456789abcdef0' }, /not a snapshot id/],
    [{ storage: 'mysql' }, /must be sqlite .* or postgres/],
    [{ availabilityZone: 'eu-west-2a' }, /no data volume/],
    [{ dataVolumeGiB: '50' }, /no data volume/],
  ])('%j is refused', (context, message) => {
    expect(() => read(context)).toThrow(message);
  });

  test('a stack name that cdk.context.json remembers as a SQLite stack is refused (its volume would go)', () => {
    expect(() => read({ 'minnow:Minnow:availabilityZone': 'eu-west-2a' })).toThrow(
      /stack Minnow is a single-instance SQLite stack .*-c stackName=MinnowCluster/,
    );
    const other = { stackName: 'MinnowCluster', amiId: TEST_AMI_ID, 'minnow:Minnow:availabilityZone': 'eu-west-2a' };
    expect(read(other).postgres).toBeDefined();
  });
});

test('-c storage=sqlite is the default stack, resource for resource', () => {
  const masked = (t: Template) => JSON.stringify(t.toJSON()).replace(/[0-9a-f]{64}/g, '<hash>');
  expect(masked(synthTemplate({ storage: 'sqlite' }))).toBe(masked(synthTemplate()));
});
