import * as fs from 'node:fs';
import * as path from 'node:path';
import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeImagesCommand } from '@aws-sdk/client-ec2';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { main, type CliDeps } from '../../bin/ops';
import { describeImages, getImageReport, imageStatus, updatePinnedImage } from '../../lib/ops/image';
import { kitTempDir } from '../helpers/temp-dirs';
import { BROKER_IDS, CLUSTER, brokerResponse, clusterMocks } from './cluster-fixtures';
import {
  DescribeInstancesCommand,
  INSTANCE_ID,
  STACK,
  clients,
  fakeRuntime,
  instanceResponse,
  mocks,
} from './fixtures';
import { IMAGES, LATEST_ARM, LATEST_X86, RUNNING_AMI, imageMocks } from './image-fixtures';

// `npm run ops -- image [--update] [--arch]` (issue 28): the pinned image, what runs, the latest
// AL2023; --update pins the latest, the patch path.

const AMI_KEY = `minnow:${STACK}:amiId`;
const ARCH_KEY = `minnow:${STACK}:amiArchitecture`;
const contextFile = (entries: Record<string, unknown> = {}) => {
  const file = path.join(kitTempDir('minnow-image-'), 'cdk.context.json');
  fs.writeFileSync(file, JSON.stringify(entries));
  return file;
};
const stored = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;

function deployed() {
  const m = mocks();
  m.ec2.on(DescribeInstancesCommand, { InstanceIds: [INSTANCE_ID] }).resolves(instanceResponse('running'));
  return { ...m, ssm: imageMocks(m.ec2) };
}

function run(argv: string[], file: string) {
  const out: string[] = [];
  const runtime = fakeRuntime();
  const deps: CliDeps = { clients: () => clients(), runtime, out: (t) => out.push(t), contextFile: file };
  return main(argv, deps).then((code) => ({ code, out: out.join('\n'), err: runtime.lines.join('\n') }));
}

test('the report: pinned, running and latest, with name, creation date, age and architecture', async () => {
  const m = deployed();
  const file = contextFile({ [AMI_KEY]: RUNNING_AMI, [ARCH_KEY]: 'x86_64' });
  const report = await getImageReport(clients(), fakeRuntime(), { stackName: STACK, contextFile: file });
  expect(report.pinned).toEqual({
    imageId: RUNNING_AMI,
    name: IMAGES[0]!.Name,
    creationDate: '2026-04-01T10:00:00.000Z',
    ageDays: 61,
    architecture: 'x86_64',
    pinnedArchitecture: 'x86_64',
  });
  expect(report.running).toEqual([expect.objectContaining({ instanceId: INSTANCE_ID, imageId: RUNNING_AMI })]);
  expect(report.latest).toMatchObject({ imageId: LATEST_X86, ageDays: 4 });
  expect(m.ssm.commandCalls(GetParameterCommand)[0]?.args[0].input).toEqual({
    Name: '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64',
  });
  expect(m.ec2.commandCalls(DescribeImagesCommand)[0]?.args[0].input.ImageIds?.sort()).toEqual(
    [LATEST_X86, RUNNING_AMI].sort(),
  );

  const { code, out } = await run(['image'], file);
  expect(code).toBe(0);
  expect(out.split('\n')).toEqual([
    'stack              Minnow',
    `pinned             ${RUNNING_AMI}  ${IMAGES[0]!.Name}  (x86_64, created 2026-04-01, 61 days old)`,
    `running            ${RUNNING_AMI}  ${IMAGES[0]!.Name}  (x86_64, created 2026-04-01, 61 days old)  on ${INSTANCE_ID}`,
    `latest AL2023      ${LATEST_X86}  ${IMAGES[1]!.Name}  (x86_64, created 2026-05-28, 4 days old)`,
    `warning: image ${RUNNING_AMI} is 61 days old: npm run ops -- image --update, then deploy`,
  ]);
});

test('--update pins the latest, keeps other entries, and says what the deploy does and how', async () => {
  deployed();
  const file = contextFile({
    [AMI_KEY]: RUNNING_AMI,
    [ARCH_KEY]: 'x86_64',
    'minnow:Minnow:availabilityZone': 'eu-west-2a',
  });
  const { code, out } = await run(['image', '--update'], file);
  expect(code).toBe(0);
  expect(stored(file)).toEqual({
    [AMI_KEY]: LATEST_X86,
    [ARCH_KEY]: 'x86_64',
    'minnow:Minnow:availabilityZone': 'eu-west-2a',
  });
  expect(out).toContain(`Pinned ${LATEST_X86} for stack Minnow in ${file} (was ${RUNNING_AMI}): commit it.`);
  expect(out).toContain(
    'The next deploy REPLACES the broker instance: the new instance installs first, then takes over the data ' +
      'volume; about 1-2 minutes without that broker, and the deploy waits until it answers.',
  );
  expect(out).toContain('  npx cdk deploy -c allowedCidr=<your CIDR>');

  // Once pinned and deployed, nothing to do.
  const m = mocks();
  m.ec2.on(DescribeInstancesCommand).resolves({
    Reservations: [
      { Instances: [{ ...instanceResponse('running').Reservations[0]!.Instances[0]!, ImageId: LATEST_X86 }] },
    ],
  });
  imageMocks(m.ec2);
  const again = await run(['image', '--update'], file);
  expect(again.out).toContain(`The latest AL2023 (${LATEST_X86}) is already pinned: nothing to do.`);
});

test('--update --arch arm64 pins the Graviton image and names the type to deploy with', async () => {
  deployed();
  const file = contextFile({ [AMI_KEY]: RUNNING_AMI, [ARCH_KEY]: 'x86_64' });
  const update = await updatePinnedImage(clients(), fakeRuntime(), {
    stackName: STACK,
    contextFile: file,
    architecture: 'arm64',
  });
  expect(update.remembered).toEqual([AMI_KEY, ARCH_KEY]);
  expect(stored(file)).toEqual({ [AMI_KEY]: LATEST_ARM, [ARCH_KEY]: 'arm64' });
  const { out } = await run(['image', '--update', '--arch', 'arm64'], contextFile());
  expect(out).toContain('-c instanceType=<a Graviton type, e.g. t4g.micro>');
  const bad = await run(['image', '--arch', 'aarch64'], contextFile());
  expect(bad.code).toBe(1);
  expect(bad.err).toContain('--arch aarch64: pass x86_64');
});

test('a cluster: every broker, and the deploy replaces them one at a time', async () => {
  const m = clusterMocks();
  m.ec2.on(DescribeInstancesCommand).resolves({
    Reservations: [
      {
        Instances: [
          ...brokerResponse(0, 'running').Reservations[0]!.Instances,
          ...brokerResponse(1, 'running').Reservations[0]!.Instances,
        ],
      },
    ],
  });
  imageMocks(m.ec2);
  const file = contextFile();
  const { code, out } = await run(['image', '--update', '--stack', CLUSTER], file);
  expect(code).toBe(0);
  expect(out).toContain(`broker 1           ${RUNNING_AMI}`);
  expect(out).toContain(`on ${BROKER_IDS[1]}`);
  expect(out).toContain('REPLACES the broker instances, one broker at a time (the others keep serving)');
  expect(out).toContain('npx cdk deploy -c allowedCidr=<your CIDR> -c stackName=MinnowCluster');
  expect(stored(file)).toEqual({
    [`minnow:${CLUSTER}:amiId`]: LATEST_X86,
    [`minnow:${CLUSTER}:amiArchitecture`]: 'x86_64',
  });
});

test('a stack not deployed yet: the pin and the latest only', async () => {
  const m = mocks();
  m.cfn.reset();
  m.cfn
    .on(DescribeStacksCommand)
    .rejects(Object.assign(new Error(`Stack with id ${STACK} does not exist`), { name: 'ValidationError' }));
  imageMocks(m.ec2);
  const { code, out } = await run(['image'], contextFile());
  expect(code).toBe(0);
  expect(out).toContain('pinned             none: run npm run ops -- preflight (or image --update)');
  expect(out).toContain('running            - (stack not deployed)');
});

test('--update is refused while cdk.json sets amiId (every deploy would move back to it)', async () => {
  deployed();
  const file = contextFile({ [AMI_KEY]: RUNNING_AMI });
  fs.writeFileSync(path.join(path.dirname(file), 'cdk.json'), JSON.stringify({ context: { amiId: RUNNING_AMI } }));
  const { code, err } = await run(['image', '--update'], file);
  expect(code).toBe(1);
  expect(err).toContain(`sets "amiId": "${RUNNING_AMI}", which every deploy passes as -c amiId`);
  expect(stored(file)).toEqual({ [AMI_KEY]: RUNNING_AMI });
});

test('an unknown image id (deregistered) does not hide the others; a denied DescribeImages does not fail status', async () => {
  const m = deployed();
  const gone = 'ami-0deadbeefdeadbeef';
  m.ec2
    .on(DescribeImagesCommand, { ImageIds: [RUNNING_AMI, gone] })
    .rejects(Object.assign(new Error(`The image id '[${gone}]' does not exist`), { name: 'InvalidAMIID.NotFound' }));
  m.ec2
    .on(DescribeImagesCommand, { ImageIds: [gone] })
    .rejects(Object.assign(new Error(`The image id '[${gone}]' does not exist`), { name: 'InvalidAMIID.NotFound' }));
  const images = await describeImages(clients(), fakeRuntime(), [RUNNING_AMI, gone]);
  expect(images.get(RUNNING_AMI)).toMatchObject({ ageDays: 61 });
  expect(images.get(gone)).toMatchObject({ imageId: gone, name: undefined });

  m.ec2
    .on(DescribeImagesCommand)
    .rejects(Object.assign(new Error('not authorized'), { name: 'UnauthorizedOperation' }));
  const status = await imageStatus(clients(), fakeRuntime(), STACK, [RUNNING_AMI], undefined);
  expect(status.warnings).toEqual([
    "the image's age is unknown: DescribeImages failed (UnauthorizedOperation: not authorized)",
  ]);
});
