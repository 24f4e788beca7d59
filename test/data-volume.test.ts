import * as fs from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { readConfig, valuesToRemember } from '../lib/config';
import { readRemembered, rememberInContextFile } from '../lib/remembered-context';
import { REMEMBERED_IMAGE, TEST_AMI_ID, only, synthTemplate } from './helpers/synth';
import { kitTempDir } from './helpers/temp-dirs';

// Issue 14, items 4, 5 and 8 and the scheduled backups: the data volume's zone, key, snapshot,
// size and daily snapshots, as the template says them.

const KEY_ARN = 'arn:aws:kms:eu-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const remembered = (name: string) => `minnow:Minnow:${name}`;

type Statement = { Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };
function statementsOf(template: ReturnType<typeof synthTemplate>, rolePrefix: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.entries(policies)
    .filter(([id]) => id.startsWith(rolePrefix))
    .flatMap(
      ([, p]) =>
        (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement,
    );
}
const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

describe('availability zone (item 5)', () => {
  test('subnet, instance and volume use the one zone given, and nothing asks Fn::GetAZs', () => {
    const template = synthTemplate({ availabilityZone: 'eu-west-2c' });
    expect(only(template, 'AWS::EC2::Subnet')[1].Properties.AvailabilityZone).toBe('eu-west-2c');
    expect(only(template, 'AWS::EC2::Volume')[1].Properties.AvailabilityZone).toBe('eu-west-2c');
    expect(only(template, 'AWS::EC2::Instance')[1].Properties.AvailabilityZone).toBe('eu-west-2c');
    expect(JSON.stringify(template.toJSON())).not.toContain('Fn::GetAZs');
  });

  test('without a zone, synth stops and names the command that chooses one', () => {
    const app = new App({
      outdir: kitTempDir('minnow-cdk-'),
      context: { allowedCidr: '203.0.113.0/24', amiId: TEST_AMI_ID },
    });
    expect(() => readConfig(app.node)).toThrow(
      /missing context value availabilityZone.*`npm run ops -- preflight --region <your region>`.*cdk\.context\.json/,
    );
    const other = new App({
      outdir: kitTempDir('minnow-cdk-'),
      context: { allowedCidr: '203.0.113.0/24', amiId: TEST_AMI_ID, stackName: 'Edge' },
    });
    expect(() => readConfig(other.node)).toThrow(/npm run ops -- preflight --stack Edge --region/);
  });

  test('a zone that is not a zone name is refused', () => {
    expect(() => synthTemplate({ availabilityZone: 'eu-west-2' })).toThrow(
      /availabilityZone="eu-west-2" is not an availability zone/,
    );
  });

  test('the remembered zone is used without -c, and a different -c zone is refused', () => {
    const template = synthTemplate({ availabilityZone: '', [remembered('availabilityZone')]: 'eu-west-2b' });
    expect(only(template, 'AWS::EC2::Volume')[1].Properties.AvailabilityZone).toBe('eu-west-2b');
    expect(() =>
      synthTemplate({ availabilityZone: 'eu-west-2a', [remembered('availabilityZone')]: 'eu-west-2b' }),
    ).toThrow(
      /availabilityZone=eu-west-2a, but stack Minnow's data volume is in eu-west-2b \(cdk\.context\.json: minnow:Minnow:availabilityZone\)\. Another zone would REPLACE/,
    );
  });
});

describe('KMS key of the data volume (item 4)', () => {
  test('without dataVolumeKmsKeyArn: encrypted with the account default, no kms: grant at all', () => {
    const template = synthTemplate();
    const [, volume] = only(template, 'AWS::EC2::Volume');
    expect(volume.Properties.Encrypted).toBe(true);
    expect(volume.Properties.KmsKeyId).toBeUndefined();
    expect(
      statementsOf(template, 'BrokerRoleDefaultPolicy')
        .flatMap(actionsOf)
        .filter((a) => a.startsWith('kms:')),
    ).toEqual([]);
  });

  test('with it: the volume uses the key, and the role may use that key through EC2 only', () => {
    const template = synthTemplate({ dataVolumeKmsKeyArn: KEY_ARN });
    expect(only(template, 'AWS::EC2::Volume')[1].Properties.KmsKeyId).toBe(KEY_ARN);
    const kms = statementsOf(template, 'BrokerRoleDefaultPolicy').filter((s) =>
      actionsOf(s).some((a) => a.startsWith('kms:')),
    );
    const viaEc2 = { 'kms:ViaService': { 'Fn::Join': ['', ['ec2.', { Ref: 'AWS::Region' }, '.amazonaws.com']] } };
    expect(kms).toEqual(
      expect.arrayContaining([
        {
          Effect: 'Allow',
          Action: 'kms:CreateGrant',
          Resource: KEY_ARN,
          Condition: { Bool: { 'kms:GrantIsForAWSResource': 'true' }, StringEquals: viaEc2 },
        },
        {
          Effect: 'Allow',
          Action: [
            'kms:Decrypt',
            'kms:DescribeKey',
            'kms:GenerateDataKeyWithoutPlaintext',
            'kms:ReEncryptFrom',
            'kms:ReEncryptTo',
          ],
          Resource: KEY_ARN,
          Condition: { StringEquals: viaEc2 },
        },
      ]),
    );
    expect(kms).toHaveLength(2);
  });

  test('the instance may read volume states (the attach loop tells a refused attach by it)', () => {
    const template = synthTemplate();
    expect(statementsOf(template, 'BrokerRoleDefaultPolicy')).toContainEqual(
      expect.objectContaining({ Action: 'ec2:DescribeVolumes', Resource: '*' }),
    );
  });

  test.each([
    ['alias/my-key', /is not a KMS key ARN.*aws kms describe-key --key-id alias\/NAME --query KeyMetadata\.Arn/],
    ['1234abcd-12ab-34cd-56ef-1234567890ab', /is not a KMS key ARN/],
    [
      KEY_ARN.replace('eu-west-2', 'us-east-1'),
      /a key in us-east-1, but the volume is in eu-west-2a: EBS needs a key of the volume's region \(eu-west-2\)/,
    ],
  ])('refuses dataVolumeKmsKeyArn=%s', (value, message) => {
    expect(() => synthTemplate({ dataVolumeKmsKeyArn: value })).toThrow(message);
  });

  test('a multi-Region key ARN is accepted', () => {
    const mrk = 'arn:aws:kms:eu-west-2:123456789012:key/mrk-1234abcd12ab34cd56ef1234567890ab';
    expect(only(synthTemplate({ dataVolumeKmsKeyArn: mrk }), 'AWS::EC2::Volume')[1].Properties.KmsKeyId).toBe(mrk);
  });

  test('a key other than the remembered one is refused: it would replace the volume', () => {
    expect(() => synthTemplate({ dataVolumeKmsKeyArn: KEY_ARN, [remembered('dataVolumeKmsKeyArn')]: 'none' })).toThrow(
      /created encrypted with the account's default EBS key .*REPLACE the volume with a blank one\. Pass no dataVolumeKmsKeyArn; if the stack was never deployed with it, npx cdk context --reset minnow:Minnow:dataVolumeKmsKeyArn/,
    );
    expect(() => synthTemplate({ [remembered('dataVolumeKmsKeyArn')]: KEY_ARN })).toThrow(
      new RegExp(`Pass -c dataVolumeKmsKeyArn=${KEY_ARN}`),
    );
  });
});

describe('remembered snapshot and size (item 8)', () => {
  test('a later deploy without -c still names the remembered snapshot and size', () => {
    const template = synthTemplate({
      [remembered('dataSnapshotId')]: 'snap-0123456789abcdef0',
      [remembered('dataVolumeGiB')]: 50,
    });
    const [, volume] = only(template, 'AWS::EC2::Volume');
    expect(volume.Properties.SnapshotId).toBe('snap-0123456789abcdef0');
    expect(volume.Properties.Size).toBe(50);
  });

  test('"none" remembered: a blank volume, no SnapshotId (an empty one would replace it on every update)', () => {
    const template = synthTemplate({ [remembered('dataSnapshotId')]: 'none' });
    expect(only(template, 'AWS::EC2::Volume')[1].Properties).not.toHaveProperty('SnapshotId');
  });

  test('the same snapshot again, or a bigger size, is fine', () => {
    const template = synthTemplate({
      dataSnapshotId: 'snap-0123456789abcdef0',
      dataVolumeGiB: '80',
      [remembered('dataSnapshotId')]: 'snap-0123456789abcdef0',
      [remembered('dataVolumeGiB')]: 50,
    });
    expect(only(template, 'AWS::EC2::Volume')[1].Properties.Size).toBe(80);
  });

  test.each([
    [
      { dataSnapshotId: 'snap-0fedcba9876543210', [remembered('dataSnapshotId')]: 'snap-0123456789abcdef0' },
      /dataSnapshotId=snap-0fedcba9876543210, but stack Minnow's data volume was created from snap-0123456789abcdef0 \(cdk\.context\.json: minnow:Minnow:dataSnapshotId\)\. A different snapshot would REPLACE the running volume\. Restore into a new stack instead \(-c stackName=MinnowRestored -c dataSnapshotId=snap-0fedcba9876543210/,
    ],
    [
      { dataSnapshotId: 'snap-0fedcba9876543210', [remembered('dataSnapshotId')]: 'none' },
      /data volume was created blank .*npx cdk context --reset minnow:Minnow:dataSnapshotId/,
    ],
    [
      { dataVolumeGiB: '20', [remembered('dataVolumeGiB')]: 50 },
      /dataVolumeGiB=20, but stack Minnow's data volume has 50 GiB .* EBS volumes cannot shrink\. Leave out -c dataVolumeGiB or pass 50 or more/,
    ],
    [{ [remembered('dataVolumeGiB')]: 'big' }, /minnow:Minnow:dataVolumeGiB="big" is not a whole number of GiB/],
    [
      { [remembered('dataSnapshotId')]: 'vol-1' },
      /minnow:Minnow:dataSnapshotId="vol-1" is not a snapshot id or "none"/,
    ],
  ])('refuses %j', (context, message) => {
    expect(() => synthTemplate(context)).toThrow(message);
  });

  test("another stack's remembered values do not apply", () => {
    const template = synthTemplate({
      'minnow:Other:dataSnapshotId': 'snap-0123456789abcdef0',
      'minnow:Other:dataVolumeGiB': 90,
    });
    const [, volume] = only(template, 'AWS::EC2::Volume');
    expect(volume.Properties).not.toHaveProperty('SnapshotId');
    expect(volume.Properties.Size).toBe(20);
  });
});

describe('cdk.context.json, written by bin/minnow.ts', () => {
  const config = (context: Record<string, unknown>) =>
    readConfig(
      new App({
        outdir: kitTempDir('minnow-cdk-'),
        context: { allowedCidr: '203.0.113.0/24', ...REMEMBERED_IMAGE, ...context },
      }).node,
    );

  test('remembers zone, key, snapshot, size and image; keeps other entries; rewrites only what changed', () => {
    const file = path.join(kitTempDir('minnow-context-'), 'cdk.context.json');
    fs.writeFileSync(file, JSON.stringify({ 'acknowledged-issue-numbers': [34892] }));
    const first = config({
      availabilityZone: 'eu-west-2b',
      dataSnapshotId: 'snap-0123456789abcdef0',
      dataVolumeGiB: '40',
    });
    expect(rememberInContextFile(file, valuesToRemember('Minnow', first))).toEqual([
      remembered('availabilityZone'),
      remembered('dataVolumeKmsKeyArn'),
      remembered('dataSnapshotId'),
      remembered('dataVolumeGiB'),
      remembered('amiId'),
      remembered('amiArchitecture'),
    ]);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      'acknowledged-issue-numbers': [34892],
      [remembered('availabilityZone')]: 'eu-west-2b',
      [remembered('dataVolumeKmsKeyArn')]: 'none',
      [remembered('dataSnapshotId')]: 'snap-0123456789abcdef0',
      [remembered('dataVolumeGiB')]: 40,
      ...REMEMBERED_IMAGE,
    });

    // The next deploy, as the CLI passes the file's entries, with nothing on the command line.
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    const later = config(stored);
    expect(later).toMatchObject({
      availabilityZone: 'eu-west-2b',
      dataSnapshotId: 'snap-0123456789abcdef0',
      dataVolumeGiB: 40,
    });
    expect(rememberInContextFile(file, valuesToRemember('Minnow', later))).toEqual([]);

    const grown = config({ ...stored, dataVolumeGiB: '60' });
    expect(rememberInContextFile(file, valuesToRemember('Minnow', grown))).toEqual([remembered('dataVolumeGiB')]);
    expect(readRemembered(file, remembered('dataVolumeGiB'))).toBe('60');
  });

  test('a blank first deploy is remembered as "none", so a later snapshot is refused', () => {
    const file = path.join(kitTempDir('minnow-context-'), 'cdk.context.json');
    rememberInContextFile(file, valuesToRemember('Minnow', config({ availabilityZone: 'eu-west-2a' })));
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(stored[remembered('dataSnapshotId')]).toBe('none');
    expect(() => config({ ...stored, dataSnapshotId: 'snap-0123456789abcdef0' })).toThrow(/created blank/);
  });

  test('a context file that is not a JSON object is reported, not overwritten', () => {
    const file = path.join(kitTempDir('minnow-context-'), 'cdk.context.json');
    fs.writeFileSync(file, '[1]');
    expect(() => rememberInContextFile(file, { a: 1 })).toThrow(/does not hold a JSON object/);
    expect(fs.readFileSync(file, 'utf8')).toBe('[1]');
  });
});

describe('scheduled snapshots (DLM)', () => {
  test('on by default: daily, kept 7 days, selecting the volume by its stack tag', () => {
    const template = synthTemplate();
    template.hasResourceProperties('AWS::DLM::LifecyclePolicy', {
      State: 'ENABLED',
      PolicyDetails: {
        PolicyType: 'EBS_SNAPSHOT_MANAGEMENT',
        ResourceTypes: ['VOLUME'],
        TargetTags: [{ Key: 'minnow:stack', Value: 'Minnow' }],
        Schedules: [
          Match.objectLike({
            CreateRule: { Interval: 24, IntervalUnit: 'HOURS', Times: ['03:00'] },
            RetainRule: { Interval: 7, IntervalUnit: 'DAYS' },
            CopyTags: false,
            TagsToAdd: [
              { Key: 'Name', Value: 'Minnow-data' },
              { Key: 'minnow:stack', Value: 'Minnow' },
            ],
          }),
        ],
      },
    });
    expect(only(template, 'AWS::DLM::LifecyclePolicy')[1].Properties.Description).toMatch(/^[0-9A-Za-z _-]+$/);
    const [, volume] = only(template, 'AWS::EC2::Volume');
    expect(volume.Properties.Tags).toContainEqual({ Key: 'minnow:stack', Value: 'Minnow' });
  });

  test('its role: trusted by DLM only; snapshots this volume; deletes only snapshots tagged with the stack', () => {
    const template = synthTemplate();
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'dlm.amazonaws.com' } })],
      },
      ManagedPolicyArns: Match.absent(),
    });
    const statements = statementsOf(template, 'BackupRoleDefaultPolicy');
    const [volumeId] = Object.keys(template.findResources('AWS::EC2::Volume'));
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: 'ec2:CreateSnapshot',
        Resource: {
          'Fn::Join': ['', expect.arrayContaining([':volume/', { Ref: volumeId }])],
        },
      }),
    );
    const deletes = statements.filter((s) => actionsOf(s).includes('ec2:DeleteSnapshot'));
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.Condition).toEqual({ StringEquals: { 'aws:ResourceTag/minnow:stack': 'Minnow' } });
    expect(statements.flatMap(actionsOf).sort()).toEqual([
      'ec2:CreateSnapshot',
      'ec2:CreateSnapshot',
      'ec2:CreateTags',
      'ec2:DeleteSnapshot',
      'ec2:DescribeAvailabilityZones',
      'ec2:DescribeInstances',
      'ec2:DescribeSnapshots',
      'ec2:DescribeVolumes',
    ]);
  });

  test("with a customer-managed key, DLM's role may use that key through EC2 as well", () => {
    const template = synthTemplate({ dataVolumeKmsKeyArn: KEY_ARN });
    const kms = statementsOf(template, 'BackupRoleDefaultPolicy').filter((s) =>
      actionsOf(s).some((a) => a.startsWith('kms:')),
    );
    expect(kms.flatMap(actionsOf).sort()).toEqual([
      'kms:CreateGrant',
      'kms:Decrypt',
      'kms:DescribeKey',
      'kms:GenerateDataKeyWithoutPlaintext',
      'kms:ReEncryptFrom',
      'kms:ReEncryptTo',
    ]);
    expect(
      kms.every((s) => s.Resource === KEY_ARN && s.Condition?.StringEquals?.['kms:ViaService'] !== undefined),
    ).toBe(true);
  });

  test('snapshotRetentionDays sets the retention; 0 turns the schedule off', () => {
    synthTemplate({ snapshotRetentionDays: '30' }).hasResourceProperties('AWS::DLM::LifecyclePolicy', {
      PolicyDetails: { Schedules: [Match.objectLike({ RetainRule: { Interval: 30, IntervalUnit: 'DAYS' } })] },
    });
    const template = synthTemplate({ snapshotRetentionDays: '0' });
    template.resourceCountIs('AWS::DLM::LifecyclePolicy', 0);
    expect(Object.keys(template.findResources('AWS::IAM::Role')).filter((id) => id.startsWith('Backup'))).toEqual([]);
  });

  test.each(['-1', '1.5', 'week', '3651'])('refuses snapshotRetentionDays=%s', (value) => {
    expect(() => synthTemplate({ snapshotRetentionDays: value })).toThrow(
      /snapshotRetentionDays=".*" must be a whole number of days from 0/,
    );
  });
});
