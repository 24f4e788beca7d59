// AlterPartitionReassignments (key 45): v0 (KIP-455; kafka-reassign-partitions --execute/--cancel,
// the admin clients' alterPartitionReassignments). Each partition has one replica, the broker that
// placement names its leader (on postgres:// the cluster's, cluster/placement.ts): the database
// holds the only copy and every broker serves it, so a replica set is not something to move.
// Per partition, in the order of Kafka's ReplicationControlManager.alterPartitionReassignment:
// - unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION;
// - replicas null (a cancel): NO_REASSIGNMENT_IN_PROGRESS, as nothing is ever being reassigned;
// - an empty list, a repeated or unregistered broker: INVALID_REPLICA_ASSIGNMENT, Kafka's messages;
// - the current replica set: NONE, nothing to do (what kafka-reassign-partitions' --execute of a
//   plan it generated itself sends for a partition that stays);
// - any other set: INVALID_REPLICA_ASSIGNMENT saying which set the partition has and why.
// ALTER on the cluster is needed (KafkaApis), else CLUSTER_AUTHORIZATION_FAILED at the top.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsRequestReassignablePartition,
  AlterPartitionReassignmentsResponse,
} from '../../protocol/messages';
import type { TopicInfo } from '../../storage/storage';
import { clusterOf } from '../cluster-answers';
import type { ApiHandler, RequestContext } from '../context';
import { mayOnCluster } from './authz';

type Outcome = { errorCode: number; errorMessage: string | null };

const ok: Outcome = { errorCode: ErrorCode.NONE, errorMessage: null };
const invalid = (errorMessage: string): Outcome => ({ errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage });

function reassign(
  ctx: RequestContext,
  topic: TopicInfo | undefined,
  name: string,
  p: AlterPartitionReassignmentsRequestReassignablePartition,
): Outcome {
  if (!topic || p.partitionIndex < 0 || p.partitionIndex >= topic.partitionCount)
    return {
      errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      errorMessage: `Unable to find partition ${name}:${p.partitionIndex}.`,
    };
  const replicas = p.replicas ?? null;
  if (replicas === null) {
    return {
      errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
      errorMessage: `No ongoing reassignment for partition ${name}-${p.partitionIndex}: minnow never moves replicas.`,
    };
  }
  if (replicas.length === 0) return invalid('The manual partition assignment includes an empty replica list.');
  if (new Set(replicas).size !== replicas.length)
    return invalid(`The manual partition assignment includes the broker ${duplicate(replicas)} more than once.`);
  const registered = new Set(
    clusterOf(ctx.broker)
      .view()
      .brokers.map((b) => b.nodeId),
  );
  const unknown = replicas.find((id) => !registered.has(id));
  if (unknown !== undefined)
    return invalid(`The manual partition assignment includes broker ${unknown}, but no such broker is registered.`);
  const leader = clusterOf(ctx.broker).leaderOf(name, p.partitionIndex);
  if (replicas.length === 1 && replicas[0] === leader) return ok;
  return invalid(
    `Partition ${name}-${p.partitionIndex} keeps its replica set [${leader}]: minnow stores each partition once, ` +
      `in its database, and places its leader itself; asked for [${replicas.join(', ')}]. ` +
      `Reassigning to [${leader}] is accepted (a no-op); nothing else can be.`,
  );
}

function duplicate(ids: readonly number[]): number {
  const seen = new Set<number>();
  for (const id of ids) {
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return -1;
}

export const alterPartitionReassignmentsHandler: ApiHandler<
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse
> = {
  apiKey: ApiKey.AlterPartitionReassignments,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    if (!mayOnCluster(ctx, 'ALTER')) {
      // The error at the top and on every partition (AlterPartitionReassignmentsRequest.getErrorResponse).
      const refused = {
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        errorMessage: 'Cluster authorization failed: reassigning partitions needs ALTER on the cluster.',
      };
      return {
        throttleTimeMs: 0,
        ...refused,
        responses: req.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, ...refused })),
        })),
      };
    }
    const responses: AlterPartitionReassignmentsResponse['responses'] = [];
    for (const t of req.topics) {
      const topic = await ctx.broker.storage.topic(t.name);
      responses.push({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, ...reassign(ctx, topic, t.name, p) })),
      });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
};
