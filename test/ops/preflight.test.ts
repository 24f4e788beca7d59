import * as fs from 'node:fs';
import * as path from 'node:path';
import { DescribeStacksCommand, GetStackPolicyCommand, SetStackPolicyCommand } from '@aws-sdk/client-cloudformation';
import {
  DescribeAvailabilityZonesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeVolumesCommand,
  GetEbsDefaultKmsKeyIdCommand,
} from '@aws-sdk/client-ec2';
import { main, type CliDeps } from '../../bin/ops';
import { preflight } from '../../lib/ops/preflight';
import { kitTempDir } from '../helpers/temp-dirs';
import {
  DescribeInstancesCommand,
  INSTANCE_ID,
  STACK,
  VOLUME_ID,
  clients,
  fakeRuntime,
  instanceResponse,
  mocks,
} from './fixtures';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { BROKER_IDS, CLUSTER, brokerResponse, clusterMocks } from './cluster-fixtures';
import { LATEST_ARM, LATEST_X86, RUNNING_AMI, imageMocks } from './image-fixtures';

// `npm run ops -- preflight` and `protect` (issue 14, items 5 and 8): the zone is chosen once and
// written down, a deploy that would move the deployed volume is refused, and the stack policy
// makes CloudFormation refuse a volume replacement.

const ZONE_KEY = `minnow:${STACK}:availabilityZone`;
const AMI_KEY = `minnow:${STACK}:amiId`;
const ARCH_KEY = `minnow:${STACK}:amiArchitecture`;
const contextFile = () => path.join(kitTempDir('minnow-preflight-'), 'cdk.context.json');
const stored = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;

function newStack() {
  const m = mocks();
  m.cfn.reset();
  m.cfn
    .on(DescribeStacksCommand)
    .rejects(Object.assign(new Error(`Stack with id ${STACK} does not exist`), { name: 'ValidationError' }));
  m.ec2.on(DescribeAvailabilityZonesCommand).resolves({
    AvailabilityZones: [{ ZoneName: 'eu-west-2c' }, { ZoneName: 'eu-west-2a' }, { ZoneName: 'eu-west-2b' }],
  });
  // eu-west-2a does not offer the type (the case Fn::GetAZs[0] walks into).
  m.ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({
    InstanceTypeOfferings: [
      { InstanceType: 't3.micro', LocationType: 'availability-zone', Location: 'eu-west-2c' },
      { InstanceType: 't3.micro', LocationType: 'availability-zone', Location: 'eu-west-2b' },
    ],
  });
  m.ec2.on(GetEbsDefaultKmsKeyIdCommand).resolves({ KmsKeyId: 'alias/aws/ebs' });
  return { ...m, ssm: imageMocks(m.ec2) };
}

function deployedStack(volume: { az: string; size?: number; snapshotId?: string }) {
  const m = mocks();
  m.ec2.on(DescribeVolumesCommand, { VolumeIds: [VOLUME_ID] }).resolves({
    Volumes: [
      {
        VolumeId: VOLUME_ID,
        AvailabilityZone: volume.az,
        Size: volume.size ?? 20,
        SnapshotId: volume.snapshotId ?? '',
        KmsKeyId: 'arn:aws:kms:eu-west-2:123456789012:key/0000',
      },
    ],
  });
  m.cfn.on(GetStackPolicyCommand).resolves({});
  m.ec2.on(DescribeInstancesCommand, { InstanceIds: [INSTANCE_ID] }).resolves(instanceResponse('running'));
  return { ...m, ssm: imageMocks(m.ec2) };
}

describe('preflight, new stack', () => {
  test('chooses the first zone (by name) that offers the type and writes it down', async () => {
    const m = newStack();
    const file = contextFile();
    const report = await preflight(clients(), { stackName: STACK, contextFile: file });
    expect(report).toEqual({
      availabilityZone: 'eu-west-2b',
      source: 'chosen',
      image: { amiId: LATEST_X86, architecture: 'x86_64', source: 'latest' },
      storage: 'sqlite',
      remembered: [AMI_KEY, ARCH_KEY, ZONE_KEY],
      notes: [],
    });
    expect(stored(file)).toEqual({ [ZONE_KEY]: 'eu-west-2b', [AMI_KEY]: LATEST_X86, [ARCH_KEY]: 'x86_64' });
    expect(m.ec2.commandCalls(DescribeInstanceTypeOfferingsCommand)[0]?.args[0].input).toEqual({
      LocationType: 'availability-zone',
      Filters: [{ Name: 'instance-type', Values: ['t3.micro'] }],
    });
    // Local Zones and zones not opted in are left out.
    expect(m.ec2.commandCalls(DescribeAvailabilityZonesCommand)[0]?.args[0].input.Filters).toEqual([
      { Name: 'zone-type', Values: ['availability-zone'] },
      { Name: 'state', Values: ['available'] },
    ]);
  });

  test('a remembered zone stays, if it offers the type', async () => {
    newStack();
    const file = contextFile();
    fs.writeFileSync(file, JSON.stringify({ [ZONE_KEY]: 'eu-west-2c' }));
    const report = await preflight(clients(), { stackName: STACK, contextFile: file });
    expect(report).toMatchObject({
      availabilityZone: 'eu-west-2c',
      source: 'remembered',
      remembered: [AMI_KEY, ARCH_KEY],
    });
  });

  test('a remembered zone without the type is refused', async () => {
    newStack();
    const file = contextFile();
    fs.writeFileSync(file, JSON.stringify({ [ZONE_KEY]: 'eu-west-2a' }));
    await expect(preflight(clients(), { stackName: STACK, contextFile: file })).rejects.toThrow(
      /says minnow:Minnow:availabilityZone=eu-west-2a, which does not offer t3\.micro \(zones that do: eu-west-2b, eu-west-2c\)/,
    );
  });

  test('a customer-managed default EBS key is named, with the context value to pass', async () => {
    const m = newStack();
    m.ec2
      .on(GetEbsDefaultKmsKeyIdCommand)
      .resolves({ KmsKeyId: 'arn:aws:kms:eu-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab' });
    const report = await preflight(clients(), { stackName: STACK, contextFile: contextFile() });
    expect(report.notes).toEqual([
      expect.stringMatching(
        /default EBS encryption key is arn:aws:kms:eu-west-2:123456789012:key\/1234abcd.*-c dataVolumeKmsKeyArn=<its key ARN>/,
      ),
    ]);
  });

  test('no zone offers the type', async () => {
    const m = newStack();
    m.ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: [] });
    await expect(
      preflight(clients(), { stackName: STACK, contextFile: contextFile(), instanceType: 'x8g.large' }),
    ).rejects.toThrow('no availability zone of this region offers x8g.large');
  });
});

describe('preflight, deployed stack', () => {
  test("keeps the volume's zone (a stack deployed with Fn::GetAZs[0]) and pins its size and snapshot", async () => {
    deployedStack({ az: 'eu-west-2c', size: 40, snapshotId: 'snap-0123456789abcdef0' });
    const file = contextFile();
    const report = await preflight(clients(), { stackName: STACK, contextFile: file });
    expect(report.availabilityZone).toBe('eu-west-2c');
    expect(report.source).toBe('deployed volume');
    expect(stored(file)).toEqual({
      [ZONE_KEY]: 'eu-west-2c',
      'minnow:Minnow:dataSnapshotId': 'snap-0123456789abcdef0',
      'minnow:Minnow:dataVolumeGiB': 40,
      // What the instance runs, never "latest": a deploy after upgrading the kit must not replace it.
      [AMI_KEY]: RUNNING_AMI,
      [ARCH_KEY]: 'x86_64',
    });
    expect(report.image).toEqual({ amiId: RUNNING_AMI, architecture: 'x86_64', source: 'deployed instance' });
    expect(report.notes).toEqual([expect.stringContaining('has no stack policy: `npm run ops -- protect`')]);
  });

  test('a blank volume is remembered as "none"', async () => {
    deployedStack({ az: 'eu-west-2a' });
    const file = contextFile();
    await preflight(clients(), { stackName: STACK, contextFile: file });
    expect(stored(file)['minnow:Minnow:dataSnapshotId']).toBe('none');
  });

  test("refuses a remembered zone that is not the volume's, and writes nothing", async () => {
    deployedStack({ az: 'eu-west-2c' });
    const file = contextFile();
    fs.writeFileSync(file, JSON.stringify({ [ZONE_KEY]: 'eu-west-2a' }));
    await expect(preflight(clients(), { stackName: STACK, contextFile: file })).rejects.toThrow(
      `says ${ZONE_KEY}=eu-west-2a, but the data volume ${VOLUME_ID} of stack "Minnow" is in eu-west-2c: a deploy would REPLACE it`,
    );
    expect(stored(file)).toEqual({ [ZONE_KEY]: 'eu-west-2a' });
  });

  test('a protected stack gets no note', async () => {
    const m = deployedStack({ az: 'eu-west-2a' });
    m.cfn.on(GetStackPolicyCommand).resolves({ StackPolicyBody: '{"Statement":[]}' });
    const report = await preflight(clients(), { stackName: STACK, contextFile: contextFile() });
    expect(report.notes).toEqual([]);
  });
});

describe('preflight, the image (issue 28)', () => {
  test('a new stack of a Graviton type pins the latest arm64 image', async () => {
    const m = newStack();
    m.ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({
      InstanceTypeOfferings: [{ InstanceType: 't4g.small', LocationType: 'availability-zone', Location: 'eu-west-2b' }],
    });
    const file = contextFile();
    const report = await preflight(clients(), { stackName: STACK, contextFile: file, instanceType: 't4g.small' });
    expect(report.image).toEqual({ amiId: LATEST_ARM, architecture: 'arm64', source: 'latest' });
    expect(stored(file)).toMatchObject({ [AMI_KEY]: LATEST_ARM, [ARCH_KEY]: 'arm64' });
  });

  test("a new stack's remembered image stays; one of the other architecture is refused with the fix", async () => {
    const m = newStack();
    const file = contextFile();
    fs.writeFileSync(file, JSON.stringify({ [AMI_KEY]: RUNNING_AMI, [ARCH_KEY]: 'x86_64' }));
    const report = await preflight(clients(), { stackName: STACK, contextFile: file });
    expect(report.image).toEqual({ amiId: RUNNING_AMI, architecture: 'x86_64', source: 'remembered' });
    expect(m.ssm.commandCalls(GetParameterCommand)).toHaveLength(0);
    await expect(
      preflight(clients(), { stackName: STACK, contextFile: file, instanceType: 't4g.micro' }),
    ).rejects.toThrow(
      `pins ${RUNNING_AMI} (x86_64) for stack "Minnow", but t4g.micro is arm64: run \`npm run ops -- image --update --arch arm64\``,
    );
  });

  test('a deployed stack keeps a remembered move (ops image --update) and says the deploy replaces the instance', async () => {
    deployedStack({ az: 'eu-west-2a' });
    const file = contextFile();
    fs.writeFileSync(file, JSON.stringify({ [ZONE_KEY]: 'eu-west-2a', [AMI_KEY]: LATEST_X86, [ARCH_KEY]: 'x86_64' }));
    const report = await preflight(clients(), { stackName: STACK, contextFile: file });
    expect(report.image).toEqual({ amiId: LATEST_X86, architecture: 'x86_64', source: 'remembered' });
    expect(stored(file)[AMI_KEY]).toBe(LATEST_X86);
    expect(report.notes).toContainEqual(
      expect.stringContaining(
        `pins ${LATEST_X86}, but ${INSTANCE_ID} runs ${RUNNING_AMI}: the next deploy REPLACES that instance`,
      ),
    );
  });

  test("a deployed cluster: the brokers' image and storage=postgres, no zone", async () => {
    const m = clusterMocks();
    m.ec2.on(DescribeInstancesCommand).resolves({
      Reservations: [
        {
          Instances: [
            ...brokerResponse(0, 'running').Reservations[0]!.Instances,
            ...brokerResponse(1, 'stopped').Reservations[0]!.Instances,
          ],
        },
      ],
    });
    imageMocks(m.ec2);
    const file = contextFile();
    const report = await preflight(clients(), { stackName: CLUSTER, contextFile: file });
    expect(report).toMatchObject({ availabilityZone: undefined, storage: 'postgres', notes: [] });
    expect(stored(file)).toEqual({
      [`minnow:${CLUSTER}:amiId`]: RUNNING_AMI,
      [`minnow:${CLUSTER}:amiArchitecture`]: 'x86_64',
      [`minnow:${CLUSTER}:storage`]: 'postgres',
    });
    expect(m.ec2.commandCalls(DescribeInstancesCommand)[0]?.args[0].input).toEqual({ InstanceIds: [...BROKER_IDS] });
  });

  test('a new cluster (--storage postgres): the latest image and the storage, no zone', async () => {
    newStack();
    const file = contextFile();
    const report = await preflight(clients(), { stackName: STACK, contextFile: file, storage: 'postgres' });
    expect(report.storage).toBe('postgres');
    expect(stored(file)).toEqual({ [AMI_KEY]: LATEST_X86, [ARCH_KEY]: 'x86_64', 'minnow:Minnow:storage': 'postgres' });
  });
});

describe('the CLI', () => {
  function run(argv: string[], file: string) {
    const out: string[] = [];
    const runtime = fakeRuntime();
    const deps: CliDeps = { clients: () => clients(), runtime, out: (t) => out.push(t), contextFile: file };
    return main(argv, deps).then((code) => ({ code, out: out.join('\n'), err: runtime.lines.join('\n') }));
  }

  test('preflight prints the zone and what it wrote', async () => {
    newStack();
    const file = contextFile();
    const { code, out } = await run(['preflight', '--region', 'eu-west-2', '--instance-type', 't3.micro'], file);
    expect(code).toBe(0);
    expect(out).toBe(
      `stack Minnow: availability zone eu-west-2b (chosen)\nimage ${LATEST_X86} (x86_64, the latest AL2023)\n` +
        `wrote ${AMI_KEY}, ${ARCH_KEY}, ${ZONE_KEY} to ${file}: commit it, so every deploy keeps these values`,
    );
  });

  test('protect sets a stack policy that denies replacing or deleting the volume; --off allows all again', async () => {
    const { cfn } = mocks();
    cfn.on(SetStackPolicyCommand).resolves({});
    const on = await run(['protect'], contextFile());
    expect(on.code).toBe(0);
    expect(on.out).toContain('refuses any update that would replace or delete the data volume');
    const policy = JSON.parse(cfn.commandCalls(SetStackPolicyCommand)[0]?.args[0].input.StackPolicyBody ?? '{}');
    expect(policy).toEqual({
      Statement: [
        { Effect: 'Allow', Action: 'Update:*', Principal: '*', Resource: '*' },
        {
          Effect: 'Deny',
          Action: ['Update:Replace', 'Update:Delete'],
          Principal: '*',
          Resource: '*',
          Condition: { StringEquals: { ResourceType: ['AWS::EC2::Volume'] } },
        },
      ],
    });
    expect(cfn.commandCalls(SetStackPolicyCommand)[0]?.args[0].input.StackName).toBe(STACK);

    await run(['protect', '--off'], contextFile());
    const off = JSON.parse(cfn.commandCalls(SetStackPolicyCommand)[1]?.args[0].input.StackPolicyBody ?? '{}');
    expect(off).toEqual({ Statement: [{ Effect: 'Allow', Action: 'Update:*', Principal: '*', Resource: '*' }] });
  });
});
