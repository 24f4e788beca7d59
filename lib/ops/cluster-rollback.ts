import type { OpsClients, OpsRuntime } from './clients';
import { OpsError } from './errors';
import { describeInstance } from './instance';
import { rollbackInstance, type RollbackOptions } from './rollback';
import type { ClusterOutputs } from './stack-outputs';

/**
 * `ops rollback` on a storage=postgres cluster: minnow-rollback on broker 1, then 2, ..., each
 * only once the previous one answers on its previous release, as a deploy rolls forward (the
 * others serve meanwhile; brokers of two releases agree on placement, docs/postgres.md "Brokers of
 * two versions"). It stops at the first failure: minnow-rollback has then put that broker back on
 * the release it ran (a previous release that refuses the database's newer schema, say), and the
 * brokers after it are untouched. Every broker must be running, or the rollback would be partial.
 */
export async function rollbackCluster(
  clients: OpsClients,
  runtime: OpsRuntime,
  stackName: string,
  outputs: ClusterOutputs,
  opts: RollbackOptions = {},
): Promise<string> {
  const ids = outputs.instanceIds;
  for (const [index, id] of ids.entries()) {
    const { state } = await describeInstance(clients, id);
    if (state !== 'running') {
      throw new OpsError(
        `broker ${index + 1} (${id}) is ${state}: rollback switches every broker, so start it first ` +
          `(aws ec2 start-instances --instance-ids ${id}) and retry; nothing was changed`,
      );
    }
  }
  const outputsByBroker: string[] = [];
  for (const [index, id] of ids.entries()) {
    const nodeId = index + 1;
    runtime.log(`broker ${nodeId} of ${ids.length} (${id}):`);
    try {
      const result = await rollbackInstance(clients, runtime, stackName, id, opts);
      outputsByBroker.push(`broker ${nodeId} (${id}):\n${result.output}`);
    } catch (err) {
      const before = nodeId === 2 ? 'Broker 1' : `Brokers 1-${nodeId - 1}`;
      const done =
        nodeId === 1
          ? 'The other brokers were not touched.'
          : `${before} now run${nodeId === 2 ? 's' : ''} the previous release, the ones after ${nodeId} the newer one, ` +
            `and broker ${nodeId} the one its output above names (minnow-rollback goes back when the previous ` +
            'release does not answer); they serve together, as during a deploy. Do not run rollback again: ' +
            `minnow-rollback toggles, so it would switch ${before.toLowerCase()} forward. Finish by hand with ` +
            `\`sudo minnow-rollback\` in an SSM session on broker ${nodeId} (once its cause is fixed) and the ones ` +
            `after it, or run it on ${before.toLowerCase()} to go forward again.`;
      throw new OpsError(`broker ${nodeId}: ${(err as Error).message}\n${done}`, { cause: err });
    }
  }
  return outputsByBroker.join('\n\n');
}
