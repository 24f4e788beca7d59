import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { GetCommandInvocationCommand, SendCommandCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { main, USAGE, type CliDeps } from '../../bin/ops';
import { DescribeInstancesCommand, EIP, clients, fakeRuntime, instanceResponse, mocks } from './fixtures';

function run(argv: string[]) {
  const out: string[] = [];
  const runtime = fakeRuntime();
  const deps: CliDeps = { clients: () => clients(), runtime, out: (t) => out.push(t) };
  return main(argv, deps).then((code) => ({ code, out: out.join('\n'), err: runtime.lines.join('\n') }));
}

test('status prints the report', async () => {
  const { ec2, cw } = mocks();
  ec2.on(DescribeInstancesCommand).resolves(instanceResponse('running', 'm7g.large', 'arm64'));
  cw.on(DescribeAlarmsCommand).resolves({});
  const { code, out } = await run(['status', '--region', 'eu-west-2']);
  expect(code).toBe(0);
  expect(out).toContain(`bootstrap servers  ${EIP}:9092`);
});

test('missing credentials: a clear message, exit 1', async () => {
  const { cfn } = mocks();
  const err = Object.assign(new Error('Could not load credentials from any providers'), {
    name: 'CredentialsProviderError',
  });
  cfn.on(DescribeStacksCommand).rejects(err);
  const { code, err: stderr } = await run(['status']);
  expect(code).toBe(1);
  expect(stderr).toBe(
    'ops status: no AWS credentials found: set AWS_PROFILE (after `aws configure` or `aws sso login`), ' +
      'or export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
  );
});

test('wrong stack name: says which stack and region, and how to choose', async () => {
  const { cfn } = mocks();
  const err = Object.assign(new Error('Stack with id Minow does not exist'), { name: 'ValidationError' });
  cfn.on(DescribeStacksCommand, { StackName: 'Minow' }).rejects(err);
  const { code, err: stderr } = await run(['snapshot', '--stack', 'Minow', '--region', 'eu-west-2']);
  expect(code).toBe(1);
  expect(stderr).toBe(
    'ops snapshot: stack "Minow" not found in eu-west-2: pass --stack with the name you deployed (default Minnow) and --region with its region',
  );
});

test('a stack without minnow outputs', async () => {
  const { cfn } = mocks();
  cfn.on(DescribeStacksCommand).resolves({
    Stacks: [{ StackName: 'Other', StackStatus: 'CREATE_COMPLETE', CreationTime: new Date(), Outputs: [] }],
  });
  const { code, err } = await run(['status', '--stack', 'Other']);
  expect(code).toBe(1);
  expect(err).toContain('stack "Other" has no InstanceId output (status CREATE_COMPLETE): is it a minnow stack');
});

test('a cluster stack whose deploy has not finished: its outputs are missing', async () => {
  const { cfn } = mocks();
  cfn.on(DescribeStacksCommand).resolves({
    Stacks: [
      {
        StackName: 'MinnowCluster',
        StackStatus: 'CREATE_COMPLETE',
        CreationTime: new Date(),
        Outputs: [
          { OutputKey: 'InstanceIds', OutputValue: 'i-1,i-2' },
          { OutputKey: 'BootstrapServers', OutputValue: `${EIP}:9093,198.51.100.8:9093` },
        ],
      },
    ],
  });
  const { code, err } = await run(['snapshot', '--stack', 'MinnowCluster']);
  expect(code).toBe(1);
  expect(err).toContain(
    'stack "MinnowCluster" lacks its DatabaseEndpoint or InstanceIds output (status CREATE_COMPLETE)',
  );
});

test('scale without --apply prints the cdk command and touches nothing', async () => {
  const { ec2 } = mocks();
  const { code, out } = await run(['scale', '--to', 't3.small']);
  expect(code).toBe(0);
  expect(out).toContain('npx cdk deploy -c allowedCidr=<your CIDR> -c instanceType=t3.small');
  expect(ec2.calls()).toHaveLength(0);
});

test('usage errors exit 2', async () => {
  expect((await run([])).code).toBe(2);
  expect((await run(['frobnicate'])).err).toContain('unknown command "frobnicate"');
  expect((await run(['status', '--bogus'])).code).toBe(2);
  const scale = await run(['scale']);
  expect([scale.code, scale.err]).toEqual([1, 'ops scale: scale needs --to TYPE, e.g. --to t3.small']);
  expect((await run(['scale', '--to', 'huge'])).err).toContain('"huge" is not an EC2 instance type');
  expect((await run(['--help'])).out).toBe(USAGE);
});

test('rollback prints what minnow-rollback said on the box and how to make it stick', async () => {
  mocks();
  const ssm = mockClient(SSMClient);
  ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'cmd-9' } });
  ssm.on(GetCommandInvocationCommand).resolves({
    Status: 'Success',
    ResponseCode: 0,
    StandardErrorContent: 'minnow-install: rolling back from two to one\n',
  });
  const { code, out, err } = await run(['rollback']);
  expect(code).toBe(0);
  expect(out).toContain('minnow-install: rolling back from two to one');
  expect(out).toContain('To make it final, deploy the commit you rolled back to.');
  expect(err).toContain('running minnow-rollback on i-0123456789abcdef0 (SSM command cmd-9)');
  expect(USAGE).toContain('rollback');
});
