import {
  GetCommandInvocationCommand,
  InvocationDoesNotExist,
  SendCommandCommand,
  type GetCommandInvocationCommandOutput,
} from '@aws-sdk/client-ssm';
import type { OpsClients, OpsRuntime } from './clients';
import { OpsError } from './errors';
import { readStackOutputs } from './stack-outputs';

export interface RollbackOptions {
  /** @default 5 s */
  readonly pollMs?: number;
  /** @default 10 min: a restart and the health check (120 s) twice, on a throttled box */
  readonly timeoutMs?: number;
}

/** What `minnow-rollback` printed on the instance, once it has finished. */
export interface RollbackResult {
  readonly commandId: string;
  readonly output: string;
}

const DONE = new Set(['Success', 'Failed', 'Cancelled', 'TimedOut', 'Cancelling']);

/**
 * `npm run ops -- rollback`: runs `minnow-rollback` on the instance through SSM Run Command (the
 * instance already has the SSM agent for Session Manager), waits for it and returns its output.
 * It switches the broker to the previous release and checks it answers (broker/deploy/release.sh);
 * the stack still names the newer release, so the next deploy of the same commit keeps the
 * rollback, and a deploy of another commit installs that one (docs/deploy.md).
 */
export async function rollbackRelease(
  clients: OpsClients,
  runtime: OpsRuntime,
  stackName: string,
  opts: RollbackOptions = {},
): Promise<RollbackResult> {
  const { instanceId } = await readStackOutputs(clients, stackName);
  return rollbackInstance(clients, runtime, stackName, instanceId, opts);
}

/** Runs minnow-rollback on one instance and waits for it (the single box, or one cluster broker). */
export async function rollbackInstance(
  clients: OpsClients,
  runtime: OpsRuntime,
  stackName: string,
  instanceId: string,
  opts: RollbackOptions = {},
): Promise<RollbackResult> {
  const sent = await clients.ssm.send(
    new SendCommandCommand({
      InstanceIds: [instanceId],
      DocumentName: 'AWS-RunShellScript',
      Comment: `minnow rollback (${stackName})`,
      Parameters: { commands: ['/usr/local/sbin/minnow-rollback'], executionTimeout: ['900'] },
    }),
  );
  const commandId = sent.Command?.CommandId;
  if (!commandId) throw new OpsError(`SendCommand to ${instanceId} returned no command id`);
  runtime.log(`rollback: running minnow-rollback on ${instanceId} (SSM command ${commandId})`);

  const deadline = runtime.now().getTime() + (opts.timeoutMs ?? 10 * 60_000);
  for (;;) {
    await runtime.sleep(opts.pollMs ?? 5_000);
    let invocation: GetCommandInvocationCommandOutput | undefined;
    try {
      invocation = await clients.ssm.send(
        new GetCommandInvocationCommand({ CommandId: commandId, InstanceId: instanceId }),
      );
    } catch (err) {
      if (!(err instanceof InvocationDoesNotExist)) throw err; // not registered yet: poll again
    }
    const status = invocation?.Status ?? 'Pending';
    if (DONE.has(status)) {
      const output = [invocation?.StandardOutputContent, invocation?.StandardErrorContent]
        .filter((t) => t && t.trim() !== '')
        .join('\n')
        .trimEnd();
      if (status !== 'Success') {
        throw new OpsError(
          `minnow-rollback on ${instanceId} ended ${status}${invocation?.ResponseCode !== undefined ? ` (exit ${invocation.ResponseCode})` : ''}:\n${output}`,
        );
      }
      return { commandId, output };
    }
    if (runtime.now().getTime() >= deadline) {
      throw new OpsError(
        `minnow-rollback on ${instanceId} is still ${status}; see: aws ssm get-command-invocation --command-id ${commandId} --instance-id ${instanceId}`,
      );
    }
  }
}
