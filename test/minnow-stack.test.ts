import * as fs from 'node:fs';
import * as path from 'node:path';
import { Token } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { workspaceLockfile } from '../lib/constructs/broker-lockfile';
import { CA_PENDING } from '../lib/constructs/broker-security';
import { REPO_ROOT, TEST_AMI_ID, only, synth, userDataText, type Synth } from './helpers/synth';

const HASH = /[0-9a-f]{64}/g;

// Asset hashes change with every broker commit; they also sit inside the user data.
expect.addSnapshotSerializer({
  test: (value: unknown) => typeof value === 'string' && /[0-9a-f]{64}/.test(value),
  print: (value: unknown) => JSON.stringify((value as string).replace(HASH, '<asset-hash>')),
});

let s: Synth;
let template: Template;
beforeAll(() => {
  s = synth();
  template = s.template;
});

test('template snapshot (asset hashes masked)', () => {
  // The release's wait condition and handle carry the release id in their logical ids.
  const masked = JSON.stringify(template.toJSON()).replace(
    /(BrokerRelease(?:Boot|Handle))[0-9a-f]{16}[0-9A-F]{8}/g,
    '$1<release>',
  );
  expect(JSON.parse(masked)).toMatchSnapshot();
});

describe('offline, env-agnostic', () => {
  test('no account or region baked in, and no context lookups', () => {
    expect(Token.isUnresolved(s.stack.account)).toBe(true);
    expect(Token.isUnresolved(s.stack.region)).toBe(true);
    const manifest = JSON.parse(fs.readFileSync(path.join(s.outdir, 'manifest.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.missing).toBeUndefined();
  });

  test('its own VPC: one AZ, one public subnet, no NAT gateway', () => {
    template.resourceCountIs('AWS::EC2::VPC', 1);
    template.resourceCountIs('AWS::EC2::Subnet', 1);
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::InternetGateway', 1);
    template.hasResourceProperties('AWS::EC2::Subnet', { MapPublicIpOnLaunch: true });
  });
});

describe('instance', () => {
  test('t3.micro on the pinned Amazon Linux 2023 image, launched unlimited (it switches to standard itself)', () => {
    template.hasResourceProperties('AWS::EC2::Instance', {
      InstanceType: 't3.micro',
      CreditSpecification: { CPUCredits: 'unlimited' },
      ImageId: TEST_AMI_ID,
    });
    // No image parameter resolved at every deploy: only CDK's BootstrapVersion, marked [cdk:skip].
    expect(Object.keys(template.toJSON().Parameters)).toEqual(['BootstrapVersion']);
  });

  test('IMDSv2 required, no SSH key, an instance profile for SSM', () => {
    const [, instance] = only(template, 'AWS::EC2::Instance');
    expect(instance.Properties.MetadataOptions).toEqual({ HttpTokens: 'required' });
    expect(instance.Properties.KeyName).toBeUndefined();
    expect(instance.Properties.IamInstanceProfile).toBeDefined();
    // The SSM agent's actions inline, not AmazonSSMManagedInstanceCore (test/instance-role.test.ts).
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [Match.objectLike({ Action: Match.arrayWith(['ssmmessages:OpenDataChannel']), Resource: '*' })],
      },
      Roles: [{ Ref: Match.stringLikeRegexp('^BrokerRole') }],
    });
  });

  test('encrypted gp3 root volume', () => {
    template.hasResourceProperties('AWS::EC2::Instance', {
      BlockDeviceMappings: [{ DeviceName: '/dev/xvda', Ebs: { Encrypted: true, VolumeType: 'gp3', VolumeSize: 10 } }],
    });
  });
});

describe('security group', () => {
  test('ingress is TCP 9093 (SASL_SSL) from allowedCidr and nothing else: the plaintext 9092 stays on loopback', () => {
    const [, sg] = only(template, 'AWS::EC2::SecurityGroup');
    expect(sg.Properties.SecurityGroupIngress).toEqual([
      {
        CidrIp: '203.0.113.0/24',
        Description: 'Kafka clients (SASL_SSL)',
        FromPort: 9093,
        ToPort: 9093,
        IpProtocol: 'tcp',
      },
    ]);
    template.resourceCountIs('AWS::EC2::SecurityGroupIngress', 0);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/"FromPort":(22|9092)\b/);
  });

  test('egress is HTTPS only', () => {
    const [, sg] = only(template, 'AWS::EC2::SecurityGroup');
    expect(sg.Properties.SecurityGroupEgress).toEqual([
      expect.objectContaining({ CidrIp: '0.0.0.0/0', FromPort: 443, ToPort: 443, IpProtocol: 'tcp' }),
    ]);
  });
});

describe('data volume', () => {
  test('separate encrypted gp3 volume, 20 GiB, kept as a snapshot on delete or replace', () => {
    template.hasResource('AWS::EC2::Volume', {
      Properties: { Encrypted: true, VolumeType: 'gp3', Size: 20, AvailabilityZone: Match.anyValue() },
      DeletionPolicy: 'Snapshot',
      UpdateReplacePolicy: 'Snapshot',
    });
    const [, volume] = only(template, 'AWS::EC2::Volume');
    expect(volume.Properties.SnapshotId).toBeUndefined();
  });

  test('same AZ as the instance', () => {
    const [, volume] = only(template, 'AWS::EC2::Volume');
    const [, instance] = only(template, 'AWS::EC2::Instance');
    expect(volume.Properties.AvailabilityZone).toEqual(instance.Properties.AvailabilityZone);
  });

  test('attached by the instance itself: AttachVolume on this volume, and on instances tagged with it', () => {
    const [volumeId] = only(template, 'AWS::EC2::Volume');
    template.resourceCountIs('AWS::EC2::VolumeAttachment', 0);
    template.hasResourceProperties('AWS::EC2::Instance', {
      Tags: Match.arrayWith([{ Key: 'minnow:data-volume', Value: { Ref: volumeId } }]),
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'ec2:AttachVolume',
            Resource: { 'Fn::Join': ['', Match.arrayWith([':volume/', { Ref: volumeId }])] },
          }),
          Match.objectLike({
            Action: 'ec2:AttachVolume',
            Condition: { StringEquals: { 'aws:ResourceTag/minnow:data-volume': { Ref: volumeId } } },
          }),
        ]),
      },
    });
  });
});

describe('Elastic IP', () => {
  test('allocated in the VPC and associated with the instance', () => {
    const [eipId] = only(template, 'AWS::EC2::EIP');
    const [instanceId] = only(template, 'AWS::EC2::Instance');
    template.hasResourceProperties('AWS::EC2::EIP', { Domain: 'vpc' });
    template.hasResourceProperties('AWS::EC2::EIPAssociation', {
      AllocationId: { 'Fn::GetAtt': [eipId, 'AllocationId'] },
      InstanceId: { Ref: instanceId },
    });
  });

  test('is the advertised address and the bootstrap server', () => {
    const [eipId] = only(template, 'AWS::EC2::EIP');
    const text = userDataText(template, { [eipId]: '198.51.100.7' });
    expect(text).toContain("MINNOW_ADVERTISED_HOST='198.51.100.7'");
    template.hasOutput('BootstrapServers', {
      Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [eipId, 'PublicIp'] }, ':9093']] },
    });
  });
});

describe('security (the default)', () => {
  const statements = (): Array<Record<string, unknown>> => {
    // The instance role's policy (the DLM role has its own).
    const [, policy] = Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
      id.startsWith('BrokerRoleDefaultPolicy'),
    ) as [string, { Properties: Record<string, unknown> }];
    return (policy.Properties.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement;
  };

  test('the admin password is generated into Secrets Manager: 32 letters and digits', () => {
    const [, secret] = only(template, 'AWS::SecretsManager::Secret');
    expect(secret.Properties.GenerateSecretString).toEqual({
      PasswordLength: 32,
      ExcludePunctuation: true,
      IncludeSpace: false,
    });
    expect(secret.Properties.SecretString).toBeUndefined();
  });

  test('the CA parameter starts as a placeholder the instance overwrites on first boot', () => {
    const [, parameter] = only(template, 'AWS::SSM::Parameter');
    expect(parameter.Properties).toMatchObject({ Type: 'String', Tier: 'Standard', Value: CA_PENDING });
    expect(parameter.Properties.Name).toBeUndefined(); // CloudFormation names it: two stacks never collide
  });

  test('the instance role may read that one secret and read/write that one parameter, nothing more', () => {
    const [secretId] = only(template, 'AWS::SecretsManager::Secret');
    const [parameterId] = only(template, 'AWS::SSM::Parameter');
    const security = statements().filter((s) => JSON.stringify(s.Action).match(/secretsmanager:|ssm:/));
    expect(security).toEqual([
      { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: { Ref: secretId } },
      {
        Action: ['ssm:GetParameter', 'ssm:PutParameter'],
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':ssm:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':parameter/',
              { Ref: parameterId },
            ],
          ],
        },
      },
    ]);
  });

  test('the user data tells the installer: security on, port 9093, which parameter and which secret', () => {
    const [secretId] = only(template, 'AWS::SecretsManager::Secret');
    const [parameterId] = only(template, 'AWS::SSM::Parameter');
    const text = userDataText(template, { [secretId]: '<secret-arn>', [parameterId]: '<ca-parameter>' });
    expect(text).toContain(
      "MINNOW_PORT='9093'\nMINNOW_LOG_LEVEL='info'\nMINNOW_SECURITY='on'\n" +
        "MINNOW_CA_PARAMETER='<ca-parameter>'\nMINNOW_ADMIN_SECRET_ID='<secret-arn>'\n",
    );
  });

  test('outputs say how to connect: bootstrap with port, the ops commands for the CA and the password', () => {
    const [secretId] = only(template, 'AWS::SecretsManager::Secret');
    const [parameterId] = only(template, 'AWS::SSM::Parameter');
    template.hasOutput('CaCertificateParameter', {
      Value: { Ref: parameterId },
      Description: Match.stringLikeRegexp('npm run ops -- ca > ca.pem'),
    });
    template.hasOutput('AdminSecretArn', {
      Value: { Ref: secretId },
      Description: Match.stringLikeRegexp('npm run ops -- password'),
    });
    const connect = template.toJSON().Outputs.ConnectWith.Value as string;
    for (const part of [
      'security.protocol=SASL_SSL',
      'sasl.mechanism=SCRAM-SHA-512',
      'sasl.username=admin',
      'npm run -s ops -- password',
      'npm run -s ops -- ca > ca.pem',
      'docs/connect-aws.md',
    ]) {
      expect(connect).toContain(part);
    }
  });
});

describe('alarms and dashboard', () => {
  test('CPU credit balance low (and not rising: see alarms.test.ts), missing data not breaching, to the SNS topic', () => {
    const [topicId] = only(template, 'AWS::SNS::Topic');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'Minnow-cpu-credit-balance-low',
      Metrics: Match.arrayWith([
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ MetricName: 'CPUCreditBalance', Namespace: 'AWS/EC2' }),
          }),
        }),
      ]),
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: topicId }],
    });
  });

  test('no surplus-credits alarm in standard mode', () => {
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'))).not.toContain('CPUSurplusCreditsCharged');
  });

  test('StatusCheckFailed_System recovers the instance and notifies', () => {
    const [topicId] = only(template, 'AWS::SNS::Topic');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'StatusCheckFailed_System',
      AlarmActions: [
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':automate:', { Ref: 'AWS::Region' }, ':ec2:recover']] },
        { Ref: topicId },
      ],
    });
  });

  test('SNS topic enforces SSL (and lets the alarms publish: see alarms.test.ts); no email subscription unless asked', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  test('dashboard: credit balance and usage, CPU, network in/out, EBS throughput', () => {
    const [, dashboard] = only(template, 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const metric of [
      'CPUCreditBalance',
      'CPUCreditUsage',
      'CPUUtilization',
      'NetworkIn',
      'NetworkOut',
      'VolumeWriteBytes',
      'VolumeReadBytes',
      'EBSByteBalance%',
    ]) {
      expect(body).toContain(`\\"${metric}\\"`);
    }
  });
});

test('outputs: BootstrapServers, InstanceId, DataVolumeId, SSM session command', () => {
  const [instanceId] = only(template, 'AWS::EC2::Instance');
  const [volumeId] = only(template, 'AWS::EC2::Volume');
  template.hasOutput('InstanceId', { Value: { Ref: instanceId } });
  template.hasOutput('DataVolumeId', { Value: { Ref: volumeId } });
  template.hasOutput('SsmSessionCommand', {
    Value: {
      'Fn::Join': ['', ['aws ssm start-session --target ', { Ref: instanceId }, ' --region ', { Ref: 'AWS::Region' }]],
    },
  });
  template.hasOutput('BootstrapServers', {});
});

describe('broker asset', () => {
  const staged = (): string => {
    const dirs = fs.readdirSync(s.outdir).filter((d) => d.startsWith('asset.'));
    expect(dirs).toHaveLength(1);
    return path.join(s.outdir, dirs[0] as string);
  };

  test('ships the broker package, its lock and deploy files, never node_modules, tests or databases', () => {
    const dir = staged();
    for (const file of [
      'package.json',
      'package-lock.json',
      'bin/minnow.js',
      'deploy/install.sh',
      'deploy/security.sh',
      'deploy/minnow.service',
    ]) {
      expect(fs.existsSync(path.join(dir, file))).toBe(true);
    }
    for (const excluded of [
      'node_modules',
      'src',
      'test',
      'data',
      'coverage',
      'protocol-specs',
      'scripts',
      'tsconfig.json',
    ]) {
      expect(fs.existsSync(path.join(dir, excluded))).toBe(false);
    }
    const all = fs.readdirSync(dir, { recursive: true }).map(String);
    expect(all.filter((f) => /\.db(-wal|-shm)?$/.test(f) || f.includes('node_modules'))).toEqual([]);
  });

  test("ships a broker-only lockfile derived from the root's one lockfile (the instance runs npm ci --omit=dev)", () => {
    const rootLock = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8'));
    const shipped = JSON.parse(fs.readFileSync(path.join(staged(), 'package-lock.json'), 'utf8'));
    expect(shipped).toEqual(workspaceLockfile(rootLock, 'minnow-broker'));
    expect(fs.existsSync(path.join(REPO_ROOT, 'broker', 'package-lock.json'))).toBe(false);
  });

  test('the instance downloads exactly this asset', () => {
    const hash = path.basename(staged()).replace(/^asset\./, '');
    expect(userDataText(template)).toContain(`/${hash}.zip'`);
  });

  test('the broker package is where the asset comes from', () => {
    expect(fs.existsSync(path.join(REPO_ROOT, 'broker', 'package.json'))).toBe(true);
  });
});
