// `ops image` (and preflight's image pin) against moto's server. moto serves a copy of AWS's public
// AL2023 parameters (/aws/service/ami-amazon-linux-latest/..., x86_64 and arm64, per region) and
// DescribeImages knows those AMIs by their real names and architectures. What it could not cover:
// an image's CreationDate is when moto started, so every image is 0 days old and the 30-day warning
// stays with the mock tests (test/ops/image.test.ts); and preflight for a stack not deployed yet
// also calls GetEbsDefaultKmsKeyId, which moto does not implement (single-stack.test.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { describeWithTools } from '../../../broker/test/support/external-tools';
import { latestImageParameter } from '../../../lib/image-config';
import { kitTempDir } from '../../helpers/temp-dirs';
import { runOps } from './cli-runner';
import { REGION, startMotoServer, useFakeCredentials, type MotoServer } from './moto-server';
import { seedCluster, seedSingleStack, type SeededCluster, type SeededStack } from './seed';

describeWithTools('python3-venv')('ops image against moto', () => {
  let moto: MotoServer;
  let single: SeededStack;
  let cluster: SeededCluster;
  let latest: { x86_64: string; arm64: string };
  const contextFile = () => path.join(kitTempDir('minnow-emulator-'), 'cdk.context.json');
  const readContext = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;

  beforeAll(async () => {
    useFakeCredentials();
    moto = await startMotoServer();
    single = await seedSingleStack(moto.clients(), 'Minnow', new Date());
    cluster = await seedCluster(moto.clients(), 'MinnowCluster', 2, new Date());
    const param = async (arch: 'x86_64' | 'arm64') =>
      (await moto.clients().ssm.send(new GetParameterCommand({ Name: latestImageParameter(arch) }))).Parameter?.Value ??
      '';
    latest = { x86_64: await param('x86_64'), arm64: await param('arm64') };
  }, 600_000);

  afterAll(async () => {
    await moto?.stop();
  });

  test('preflight pins the image the deployed instance runs, and image shows it pinned, running and latest', async () => {
    const file = contextFile();
    const args = ['--stack', 'Minnow', '--region', REGION];
    expect((await runOps(moto.clients, ['preflight', ...args], file)).code).toBe(0);
    expect(readContext(file)).toMatchObject({
      'minnow:Minnow:amiId': single.imageId,
      'minnow:Minnow:amiArchitecture': 'x86_64',
    });
    const { code, out, err } = await runOps(moto.clients, ['image', ...args], file);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    // seed.ts launched the latest x86_64 AL2023, so all three agree.
    expect(single.imageId).toBe(latest.x86_64);
    const described = `${single.imageId}  al2023-ami-`;
    expect(out).toContain(`pinned             ${described}`);
    expect(out).toContain(`running            ${described}`);
    expect(out).toMatch(new RegExp(`on ${single.instanceId}\\nlatest AL2023      ${single.imageId} .*= pinned$`));
  });

  test('image --update --arch arm64 pins the latest arm64 AL2023 and says the next deploy replaces the broker', async () => {
    const file = contextFile();
    const argv = ['image', '--update', '--arch', 'arm64', '--stack', 'Minnow', '--region', REGION];
    const { code, out } = await runOps(moto.clients, argv, file);
    expect(code).toBe(0);
    expect(readContext(file)).toEqual({
      'minnow:Minnow:amiId': latest.arm64,
      'minnow:Minnow:amiArchitecture': 'arm64',
    });
    expect(out).toMatch(new RegExp(`latest AL2023      ${latest.arm64}  al2023-ami-\\S+-arm64  \\(arm64`));
    expect(out).toContain(`Pinned ${latest.arm64} for stack Minnow in ${file}: commit it.`);
    expect(out).toContain('The next deploy REPLACES the broker instance:');
  });

  test('image for a stack not deployed: the stack is missing (moto answers as CloudFormation does)', async () => {
    const { code, out } = await runOps(moto.clients, ['image', '--stack', 'Fresh', '--region', REGION], contextFile());
    expect(code).toBe(0);
    expect(out).toContain('running            - (stack not deployed)');
    expect(out).toContain(`latest AL2023      ${latest.x86_64}  al2023-ami-`);
  });

  test('image on a cluster: each broker', async () => {
    const { code, out } = await runOps(
      moto.clients,
      ['image', '--stack', 'MinnowCluster', '--region', REGION],
      contextFile(),
    );
    expect(code).toBe(0);
    for (const [i, broker] of cluster.brokers.entries()) {
      expect(out).toMatch(new RegExp(`broker ${i + 1} {11}${broker.imageId}  al2023-ami-.* on ${broker.instanceId}`));
    }
  });
});
