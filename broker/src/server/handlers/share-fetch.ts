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

export function byTopic(ctx: RequestContext, answers: readonly SharePartitionAnswer[]) {
  const topics = new Map<string, SharePartitionAnswer[]>();
  for (const a of answers) {
    const list = topics.get(a.topicId) ?? [];
    list.push(a);
    topics.set(a.topicId, list);
  }
  const currentLeader = { leaderId: ctx.broker.identity.nodeId, leaderEpoch: 0 };
  return [...topics.entries()].map(([topicId, parts]) => ({ topicId, parts, currentLeader }));
}

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
    if (groupId === '' || memberId === '') {
      return refusal(
        ErrorCode.INVALID_REQUEST,
        'ShareFetch needs a GroupId and a MemberId (a share consumer sends both).',
      );
    }
    if (!may(ctx, 'READ', 'GROUP', groupId)) return refusal(ErrorCode.GROUP_AUTHORIZATION_FAILED, null);
    const out = await share.fetcher.handle({
      groupId,
      memberId,
      shareSessionEpoch: req.shareSessionEpoch,
      maxWaitMs: Math.max(0, Math.min(req.maxWaitMs, 30_000)),
      maxBytes: req.maxBytes ?? 0x7fffffff,
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
      fetch: true,
    });
    if (out.errorCode !== ErrorCode.NONE) {
      return { ...refusal(out.errorCode, out.errorMessage), acquisitionLockTimeoutMs: out.acquisitionLockTimeoutMs };
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
          currentLeader,
          records: p.records,
          acquiredRecords: p.acquiredRecords,
        })),
      })),
      nodeEndpoints: [],
    };
  },
};
