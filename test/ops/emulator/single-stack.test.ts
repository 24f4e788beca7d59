// The ops CLI against moto's server (an AWS API emulator, test/ops/emulator/requirements.txt), on a
// single-instance stack seeded by seed.ts: every request goes through the real SDK clients of
// lib/ops/clients.ts, over HTTP, to an implementation of the AWS APIs, not to request mocks.
//
// What moto 5.2.6 could not cover, and why:
// - CloudFormation from the synthesized template (test/helpers/synth.ts): CreateStack fails, so
//   the stack here is a small one whose Outputs carry the seeded ids. moto crashes on an
//   AWS::SSM::Parameter without a Name (the kit lets CloudFormation name the CA parameter); its
//   CloudFormation has no AWS::SecretsManager::Secret, so the broker role's policy statement that
//   Refs the admin secret has no Resource and moto's IAM refuses it ("Policy statement must contain
//   resources"); it skips AWS::DLM::LifecyclePolicy with a warning; the security=off template
//   (neither secret nor parameter) stops at Fn::GetAtt PublicIp of the AWS::EC2::EIP (unsupported);
//   and the cluster's crashes on the AWS::RDS::DBInstance's DBParameterGroupName Ref.
// - EC2 state transitions are immediate (stop, start, a snapshot is "completed" at once), so the
//   waits' polling and their timeouts are covered by the mock tests (test/ops/*.test.ts) only.
// - SSM Run Command: SendCommand is recorded and GetCommandInvocation answers Success at once with
//   no output (nothing runs minnow-rollback); its failure paths stay with the mock tests.
// - CloudWatch: no metrics of its own (no CPUCreditBalance from the instance), so seed.ts puts the
//   datapoints; it does not evaluate alarms either (a new one is OK), so seed.ts sets one to ALARM.
// - EC2 GetEbsDefaultKmsKeyId is not implemented (moto answers 500), so preflight for a stack not
//   deployed yet is covered up to its zone choice (DescribeInstanceTypeOfferings) only.
// - DescribeInstanceTypes' architectures are real (t4g is arm64), but moto lets
//   ModifyInstanceAttribute change the type of a running instance, which EC2 refuses: the test
//   checks that the CLI stops the instance first by reading its log.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GetStackPolicyCommand } from '@aws-sdk/client-cloudformation';
import { DescribeInstancesCommand, DescribeSnapshotsCommand, DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { ListCommandsCommand } from '@aws-sdk/client-ssm';
import { describeWithTools } from '../../../broker/test/support/external-tools';
import { zonesOffering } from '../../../lib/ops/preflight';
import { ALLOW_ALL_POLICY, PROTECT_DATA_VOLUME_POLICY } from '../../../lib/ops/protect';
import { kitTempDir } from '../../helpers/temp-dirs';
import { runOps } from './cli-runner';
import { REGION, startMotoServer, useFakeCredentials, type MotoServer } from './moto-server';
import { ADMIN_PASSWORD, CA_PEM, ZONE, seedSingleStack, type SeededStack } from './seed';

const STACK = 'Minnow';
const REPO_ROOT = path.join(__dirname, '..', '..', '..');

describeWithTools('python3-venv')('ops CLI against moto (single instance)', () => {
  let moto: MotoServer;
  let seeded: SeededStack;
  const ops = (...argv: string[]) => runOps(moto.clients, [...argv, '--stack', STACK, '--region', REGION]);

  beforeAll(async () => {
    useFakeCredentials();
    moto = await startMotoServer();
    seeded = await seedSingleStack(moto.clients(), STACK, new Date());
  }, 600_000);

  afterAll(async () => {
    await moto?.stop();
  });

  async function instance() {
    const r = await moto.clients().ec2.send(new DescribeInstancesCommand({ InstanceIds: [seeded.instanceId] }));
    return r.Reservations?.[0]?.Instances?.[0];
  }

  test('status: the instance, its address, AMI, volume, credit trend and alarms', async () => {
    const { code, out, err } = await ops('status');
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(out).toContain(`bootstrap servers  ${seeded.publicIp}:9093`);
    expect(out).toContain(`instance           ${seeded.instanceId}  running  t3.micro (x86_64)  ${ZONE}`);
    expect(out).toContain(`public address     ${seeded.publicIp}`);
    // moto's copy of AWS's image list: the real AL2023 name; created when moto started (see image.test.ts).
    expect(out).toMatch(
      new RegExp(
        `\nimage {14}${seeded.imageId} {2}al2023-ami-\\S+-x86_64 {2}\\(x86_64, created [-\\d]{10}, 0 days old\\)\n`,
      ),
    );
    expect(out).toContain(`data volume        ${seeded.volumeId}`);
    // seed.ts: 100 down to 78 over an hour, 2 credits per 5 minutes.
    expect(out).toContain('CPU credits        78.0  (-24.0/h over the last 3 h, empty in ~3.3 h at this rate)');
    expect(out).toMatch(/\n {2}ALARM +Minnow-cpu-credit-balance-low$/);
  });

  test('status --json', async () => {
    const { code, out } = await ops('status', '--json');
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report).toMatchObject({
      stackName: STACK,
      dataVolumeId: seeded.volumeId,
      instance: { id: seeded.instanceId, state: 'running', type: 't3.micro', publicIp: seeded.publicIp },
      credits: { balance: 78, points: 12 },
      alarms: [{ name: 'Minnow-cpu-credit-balance-low', state: 'ALARM' }],
    });
    expect(report.credits.trendPerHour).toBeCloseTo(-24, 6);
  });

  test('password and ca: the secret and the parameter the outputs name', async () => {
    expect(await ops('password')).toEqual({ code: 0, out: ADMIN_PASSWORD, err: '' });
    expect(await ops('ca')).toEqual({ code: 0, out: CA_PEM, err: '' });
    const file = path.join(kitTempDir('minnow-emulator-'), 'password');
    const { code } = await ops('password', '--out', file);
    expect(code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${ADMIN_PASSWORD}\n`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  test('snapshot: CreateSnapshot of the data volume, tagged, waited for', async () => {
    const { code, out } = await ops('snapshot');
    expect(code).toBe(0);
    expect(out).toMatch(/^snap-[0-9a-f]+$/);
    const r = await moto.clients().ec2.send(new DescribeSnapshotsCommand({ SnapshotIds: [out] }));
    const snapshot = r.Snapshots?.[0];
    expect(snapshot).toMatchObject({ VolumeId: seeded.volumeId, State: 'completed' });
    expect(snapshot?.Tags).toEqual(expect.arrayContaining([{ Key: 'minnow:stack', Value: STACK }]));
  });

  test('rollback: SendCommand runs minnow-rollback on the instance', async () => {
    const { code, out } = await ops('rollback');
    expect(code).toBe(0);
    expect(out).toContain('The stack still names the newer release');
    const listed = await moto.clients().ssm.send(new ListCommandsCommand({ InstanceId: seeded.instanceId }));
    expect(listed.Commands).toEqual([
      expect.objectContaining({
        DocumentName: 'AWS-RunShellScript',
        InstanceIds: [seeded.instanceId],
        Parameters: { commands: ['/usr/local/sbin/minnow-rollback'], executionTimeout: ['900'] },
      }),
    ]);
  });

  test("preflight: the deployed volume's zone and size go to cdk.context.json", async () => {
    const contextFile = path.join(kitTempDir('minnow-emulator-'), 'cdk.context.json');
    const { code, out } = await runOps(moto.clients, ['preflight', '--stack', STACK, '--region', REGION], contextFile);
    expect(code).toBe(0);
    expect(out).toContain(`stack ${STACK}: availability zone ${ZONE} (deployed volume)`);
    expect(JSON.parse(fs.readFileSync(contextFile, 'utf8'))).toMatchObject({
      [`minnow:${STACK}:availabilityZone`]: ZONE,
      [`minnow:${STACK}:dataVolumeGiB`]: 20,
    });
  });

  // The whole command needs GetEbsDefaultKmsKeyId, which moto does not implement (see the header).
  test('preflight for a stack not deployed yet: the zones that offer the type, in order', async () => {
    const zones = await zonesOffering(moto.clients(), 't3.micro');
    expect(zones[0]).toBe('us-east-1a');
    expect([...zones].sort()).toEqual(zones);
  });

  test('protect sets the stack policy that denies replacing or deleting the volume; --off allows all again', async () => {
    expect((await ops('protect')).code).toBe(0);
    const policy = async () =>
      JSON.parse(
        (await moto.clients().cloudformation.send(new GetStackPolicyCommand({ StackName: STACK }))).StackPolicyBody ??
          '{}',
      );
    expect(await policy()).toEqual(PROTECT_DATA_VOLUME_POLICY);
    expect((await ops('protect', '--off')).code).toBe(0);
    expect(await policy()).toEqual(ALLOW_ALL_POLICY);
  });

  test('scale --apply across architectures is refused, and the instance is left alone', async () => {
    const { code, err } = await ops('scale', '--to', 't4g.small', '--apply');
    expect(code).toBe(1);
    expect(err).toContain("t4g.small runs arm64, but the instance's AMI is x86_64");
    expect(await instance()).toMatchObject({ InstanceType: 't3.micro', State: { Name: 'running' } });
  });

  test('scale --apply: stop, modify, start; the Elastic IP and the data volume stay', async () => {
    const { code, out, err } = await ops('scale', '--to', 't3.small', '--apply');
    expect(code).toBe(0);
    expect(out).toContain(`${seeded.instanceId} is running as t3.small at ${seeded.publicIp}`);
    const order = ['stopping', ': stopped', 'changing the type to t3.small', 'starting', ': running'];
    const positions = order.map((step) => err.indexOf(step));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(await instance()).toMatchObject({
      InstanceType: 't3.small',
      State: { Name: 'running' },
      PublicIpAddress: seeded.publicIp,
    });
    const volumes = await moto.clients().ec2.send(new DescribeVolumesCommand({ VolumeIds: [seeded.volumeId] }));
    expect(volumes.Volumes?.[0]?.Attachments).toEqual([
      expect.objectContaining({ InstanceId: seeded.instanceId, State: 'attached' }),
    ]);
  });

  test('`npm run ops` itself follows AWS_ENDPOINT_URL (the SDK setting): status in a child process', async () => {
    const child = spawn(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['bin/ops.ts', 'status', '--json'], {
      cwd: REPO_ROOT,
      env: { ...process.env, AWS_ENDPOINT_URL: moto.endpoint, AWS_REGION: REGION },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toMatchObject({ instance: { id: seeded.instanceId, type: 't3.small' } });
  });
});
