import {
  GetCommandInvocationCommand,
  InvocationDoesNotExist,
  SendCommandCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { rollbackRelease } from '../../lib/ops/rollback';
import { INSTANCE_ID, STACK, clients, fakeRuntime, mocks } from './fixtures';

test('rollback: runs minnow-rollback on the instance through SSM, waits, returns its output', async () => {
  mocks();
  const ssm = mockClient(SSMClient);
  ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'cmd-1' } });
  ssm
    .on(GetCommandInvocationCommand, { CommandId: 'cmd-1', InstanceId: INSTANCE_ID })
    .rejectsOnce(new InvocationDoesNotExist({ message: 'not yet', $metadata: {} }))
    .resolvesOnce({ Status: 'InProgress' })
    .resolves({
      Status: 'Success',
      ResponseCode: 0,
      StandardOutputContent: '',
      StandardErrorContent: 'minnow-install: rolling back from two to one\nminnow-install: minnow one answers: ...\n',
    });
  const runtime = fakeRuntime();
  const result = await rollbackRelease(clients(), runtime, STACK, { pollMs: 1000 });
  expect(result).toEqual({
    commandId: 'cmd-1',
    output: 'minnow-install: rolling back from two to one\nminnow-install: minnow one answers: ...',
  });
  expect(ssm.commandCalls(SendCommandCommand)[0]?.args[0].input).toEqual({
    InstanceIds: [INSTANCE_ID],
    DocumentName: 'AWS-RunShellScript',
    Comment: `minnow rollback (${STACK})`,
    Parameters: { commands: ['/usr/local/sbin/minnow-rollback'], executionTimeout: ['900'] },
  });
  expect(runtime.slept).toEqual([1000, 1000, 1000]);
});

test('a failed rollback (no previous release, or it does not answer) fails with what the box said', async () => {
  mocks();
  const ssm = mockClient(SSMClient);
  ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'cmd-2' } });
  ssm.on(GetCommandInvocationCommand).resolves({
    Status: 'Failed',
    ResponseCode: 1,
    StandardErrorContent: 'minnow-install: error: no previous release to roll back to\n',
  });
  await expect(rollbackRelease(clients(), fakeRuntime(), STACK)).rejects.toThrow(
    `minnow-rollback on ${INSTANCE_ID} ended Failed (exit 1):\nminnow-install: error: no previous release to roll back to`,
  );
});

test('gives up waiting after the timeout, naming the command to follow it', async () => {
  mocks();
  const ssm = mockClient(SSMClient);
  ssm.on(SendCommandCommand).resolves({ Command: { CommandId: 'cmd-3' } });
  ssm.on(GetCommandInvocationCommand).resolves({ Status: 'InProgress' });
  await expect(rollbackRelease(clients(), fakeRuntime(), STACK, { timeoutMs: 20_000, pollMs: 5_000 })).rejects.toThrow(
    `minnow-rollback on ${INSTANCE_ID} is still InProgress; see: aws ssm get-command-invocation --command-id cmd-3 --instance-id ${INSTANCE_ID}`,
  );
});
