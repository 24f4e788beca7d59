import {
  GetCommandInvocationCommand,
  SendCommandCommand,
  SSMClient,
  type GetCommandInvocationCommandOutput,
  type SendCommandCommandInput,
} from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { main, type CliDeps } from '../../bin/ops';
import { rollbackCluster } from '../../lib/ops/cluster-rollback';
import { readStackKind } from '../../lib/ops/stack-outputs';
import { BROKER_IDS, CLUSTER, brokerResponse, clusterMocks } from './cluster-fixtures';
import { DescribeInstancesCommand, clients, fakeRuntime } from './fixtures';

async function clusterOutputs() {
  const kind = await readStackKind(clients(), CLUSTER);
  if (kind.kind !== 'cluster') throw new Error('expected a cluster');
  return kind;
}

/** Both brokers running; SSM answers each command id with `results[n]` (cmd-1 is broker 1's). */
function setUp(results: Array<Partial<GetCommandInvocationCommandOutput>>) {
  const m = clusterMocks();
  m.ec2.on(DescribeInstancesCommand, { InstanceIds: [BROKER_IDS[0]] }).resolves(brokerResponse(0, 'running'));
  m.ec2.on(DescribeInstancesCommand, { InstanceIds: [BROKER_IDS[1]] }).resolves(brokerResponse(1, 'running'));
  const ssm = mockClient(SSMClient);
  ssm.on(SendCommandCommand).callsFake((input: SendCommandCommandInput) => ({
    Command: { CommandId: `cmd-${BROKER_IDS.indexOf(input.InstanceIds?.[0] as (typeof BROKER_IDS)[number]) + 1}` },
  }));
  results.forEach((result, i) => {
    ssm.on(GetCommandInvocationCommand, { CommandId: `cmd-${i + 1}`, InstanceId: BROKER_IDS[i] }).resolves(result);
  });
  return { ...m, ssm };
}

const ok = (from: string, to: string): Partial<GetCommandInvocationCommandOutput> => ({
  Status: 'Success',
  ResponseCode: 0,
  StandardErrorContent: `minnow-install: rolling back from ${from} to ${to}\n`,
});

test('rollback on a cluster: minnow-rollback on each broker in turn, each after the previous succeeded', async () => {
  const { ssm } = setUp([ok('two', 'one'), ok('two', 'one')]);
  const runtime = fakeRuntime();
  const output = await rollbackCluster(clients(), runtime, CLUSTER, await clusterOutputs(), { pollMs: 1000 });
  expect(ssm.commandCalls(SendCommandCommand).map((c) => c.args[0].input.InstanceIds)).toEqual([
    [BROKER_IDS[0]],
    [BROKER_IDS[1]],
  ]);
  expect(ssm.commandCalls(SendCommandCommand)[0]?.args[0].input.Parameters).toEqual({
    commands: ['/usr/local/sbin/minnow-rollback'],
    executionTimeout: ['900'],
  });
  // Broker 2's command is sent only once broker 1's has finished.
  expect(ssm.calls().map((c) => c.args[0].constructor.name)).toEqual([
    'SendCommandCommand',
    'GetCommandInvocationCommand',
    'SendCommandCommand',
    'GetCommandInvocationCommand',
  ]);
  expect(output).toBe(
    `broker 1 (${BROKER_IDS[0]}):\nminnow-install: rolling back from two to one\n\n` +
      `broker 2 (${BROKER_IDS[1]}):\nminnow-install: rolling back from two to one`,
  );
  expect(runtime.lines).toContain(`broker 2 of 2 (${BROKER_IDS[1]}):`);
});

test('it stops at the first broker that fails, and says where each broker is', async () => {
  const { ssm } = setUp([
    {
      Status: 'Failed',
      ResponseCode: 1,
      StandardErrorContent: 'minnow-install: release one did not answer; back on two\n',
    },
  ]);
  await expect(rollbackCluster(clients(), fakeRuntime(), CLUSTER, await clusterOutputs())).rejects.toThrow(
    `broker 1: minnow-rollback on ${BROKER_IDS[0]} ended Failed (exit 1):\n` +
      'minnow-install: release one did not answer; back on two\nThe other brokers were not touched.',
  );
  expect(ssm.commandCalls(SendCommandCommand)).toHaveLength(1);
});

test('a failure on broker 2 after broker 1 rolled back: no second run (it would toggle broker 1 forward)', async () => {
  setUp([
    ok('two', 'one'),
    { Status: 'Failed', ResponseCode: 1, StandardErrorContent: 'minnow-install: error: no previous release\n' },
  ]);
  const err = await rollbackCluster(clients(), fakeRuntime(), CLUSTER, await clusterOutputs()).catch((e: Error) => e);
  expect((err as Error).message).toMatch(/^broker 2: minnow-rollback on i-0aaaaaaaaaaaaaaa2 ended Failed \(exit 1\)/);
  expect((err as Error).message).toContain('Broker 1 now runs the previous release');
  expect((err as Error).message).toContain('Do not run rollback again');
});

test('a broker that is not running: refused before any broker changes', async () => {
  const { ec2, ssm } = setUp([]);
  ec2.on(DescribeInstancesCommand, { InstanceIds: [BROKER_IDS[1]] }).resolves(brokerResponse(1, 'stopped'));
  await expect(rollbackCluster(clients(), fakeRuntime(), CLUSTER, await clusterOutputs())).rejects.toThrow(
    `broker 2 (${BROKER_IDS[1]}) is stopped: rollback switches every broker, so start it first ` +
      `(aws ec2 start-instances --instance-ids ${BROKER_IDS[1]}) and retry; nothing was changed`,
  );
  expect(ssm.commandCalls(SendCommandCommand)).toHaveLength(0);
});

test('ops rollback --stack MinnowCluster prints every broker and how to make it stick', async () => {
  setUp([ok('two', 'one'), ok('two', 'one')]);
  const out: string[] = [];
  const deps: CliDeps = { clients: () => clients(), runtime: fakeRuntime(), out: (t) => out.push(t) };
  await expect(main(['rollback', '--stack', CLUSTER], deps)).resolves.toBe(0);
  expect(out.join('\n')).toContain(`broker 2 (${BROKER_IDS[1]}):\nminnow-install: rolling back from two to one`);
  expect(out.join('\n')).toContain('To make it final, deploy the commit you rolled back to.');
});
