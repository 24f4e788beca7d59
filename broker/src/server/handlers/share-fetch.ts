// ShareFetch (key 78, KIP-932): v1 (v0 was Kafka 4.0's early access; v2's acquire modes and renew
// acknowledgements are not advertised yet). READ on the group, then READ on each topic
// (TOPIC_AUTHORIZATION_FAILED per partition, as KafkaApis.handleShareFetchRequest). The share session,
// the acknowledgements and the acquisition are groups/share/share-fetcher.ts.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ShareFetchRequest, ShareFetchResponse } from '../../protocol/messages';
import type { SharePartitionAnswer } from '../../groups/share/share-fetcher';
import type { ApiHandler, RequestContext } from '../context';
import { may } from './authz';
import { clusterOf, nodeEndpoint } from '../cluster-answers';
import { shareMemberRefusal } from './share-group-gates';

export function byTopic(ctx: RequestContext, answers: readonly SharePartitionAnswer[]) {
  const topics = new Map<string, SharePartitionAnswer[]>();
  for (const a of answers) {
    const list = topics.get(a.topicId) ?? [];
    list.push(a);
    topics.set(a.topicId, list);
  }
  const currentLeader = { leaderId: ctx.broker.identity.nodeId, leaderEpoch: clusterOf(ctx.broker).view().epoch };
  return [...topics.entries()].map(([topicId, parts]) => ({ topicId, parts, currentLeader }));
}

/** A partition led elsewhere: its leader (by name) for CurrentLeader, as Kafka answers NOT_LEADER_OR_FOLLOWER. */
export function leaderOf(ctx: RequestContext, topicName: string | undefined, partition: number) {
  const cluster = clusterOf(ctx.broker);
  const leaderId = topicName === undefined ? -1 : cluster.leaderOf(topicName, partition);
  return { leaderId, leaderEpoch: cluster.view().epoch };
}

/** NodeEndpoints: the brokers named as leaders of partitions answered NOT_LEADER_OR_FOLLOWER. */
export function leaderEndpoints(ctx: RequestContext, leaderIds: ReadonlySet<number>) {
  return clusterOf(ctx.broker)
    .view()
    .brokers.filter((n) => leaderIds.has(n.nodeId))
    .map((n) => ({ nodeId: n.nodeId, ...nodeEndpoint(ctx, n), rack: n.rack }));
}

/** Whether this broker leads the partition (a share-partition's state lives on its leader). */
export const leadsHere = (ctx: RequestContext) => (topicName: string, partition: number) =>
  clusterOf(ctx.broker).leaderOf(topicName, partition) === ctx.broker.identity.nodeId;

export const shareFetchHandler: ApiHandler<ShareFetchRequest, ShareFetchResponse> = {
  apiKey: ApiKey.ShareFetch,
  minVersion: 1,
  maxVersion: 1,
  async handle(ctx, req) {
    const share = ctx.broker.shareGroups;
    const refusal = (errorCode: number, errorMessage: string | null): ShareFetchResponse => ({
      throttleTimeMs: 0,
      errorCode,
      errorMessage,
      acquisitionLockTimeoutMs: share.limits.lockDurationMs,
      responses: [],
      nodeEndpoints: [],
    });
    const groupId = req.groupId ?? '';
    const memberId = req.memberId ?? '';
    const refused = shareMemberRefusal(ctx, 'ShareFetch', groupId, memberId);
    if (refused) return refusal(refused.errorCode, refused.errorMessage);
    // As a Fetch (KafkaApis): MaxBytes bounded by fetch.max.bytes and what one quota window allows
    // the client, MinBytes by MaxBytes; a share-partition's read is spent from it (share-fetcher.ts).
    const quotaWindowBytes = Math.floor(
      ctx.broker.quotas.fetch.maxValueInQuotaWindow(ctx.session.principal.name, ctx.clientId ?? ''),
    );
    const maxBytes = Math.min(req.maxBytes ?? 0x7fffffff, ctx.broker.config.fetchMaxBytes, quotaWindowBytes);
    const out = await share.fetcher.handle({
      groupId,
      memberId,
      shareSessionEpoch: req.shareSessionEpoch,
      maxWaitMs: Math.max(0, Math.min(req.maxWaitMs, 30_000)),
      minBytes: Math.min(req.minBytes, maxBytes),
      maxBytes,
      maxRecords: req.maxRecords,
      topics: req.topics.map((t) => ({
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          acknowledgementBatches: p.acknowledgementBatches,
        })),
      })),
      forgotten: req.forgottenTopicsData.map((f) => ({ topicId: f.topicId, partitions: f.partitions })),
      mayRead: (name) => may(ctx, 'READ', 'TOPIC', name),
      connectionId: ctx.connectionId,
      leads: leadsHere(ctx),
      // The broker's bound on fetched bytes held in memory (response-memory.ts), as a Fetch's.
      memory: ctx.responseHold,
      fetch: true,
    });
    if (out.errorCode !== ErrorCode.NONE) {
      return { ...refusal(out.errorCode, out.errorMessage), acquisitionLockTimeoutMs: out.acquisitionLockTimeoutMs };
    }
    // A partition led by another broker: name its leader so the client moves there (Kafka's answer).
    const leaders = new Set<number>();
    const elsewhere = new Map<string, { leaderId: number; leaderEpoch: number }>();
    for (const p of out.partitions) {
      if (p.errorCode !== ErrorCode.NOT_LEADER_OR_FOLLOWER) continue;
      const topic = await ctx.broker.storage.topicById(p.topicId);
      const leader = leaderOf(ctx, topic?.name, p.partitionIndex);
      leaders.add(leader.leaderId);
      elsewhere.set(`${p.topicId}:${p.partitionIndex}`, leader);
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      acquisitionLockTimeoutMs: out.acquisitionLockTimeoutMs,
      responses: byTopic(ctx, out.partitions).map(({ topicId, parts, currentLeader }) => ({
        topicId,
        partitions: parts.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: p.errorCode,
          errorMessage: null,
          acknowledgeErrorCode: p.acknowledgeErrorCode,
          acknowledgeErrorMessage: null,
          currentLeader: elsewhere.get(`${topicId}:${p.partitionIndex}`) ?? currentLeader,
          records: p.records,
          acquiredRecords: p.acquiredRecords,
        })),
      })),
      nodeEndpoints: leaderEndpoints(ctx, leaders),
    };
  },
};
