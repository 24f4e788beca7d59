// ShareAcknowledge (key 79, KIP-932): v1. Acknowledgements outside a fetch (commitSync/commitAsync
// of a KafkaShareConsumer, or its close with epoch -1); same session rules and checks as ShareFetch
// (groups/share/share-fetcher.ts with fetch off).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ShareAcknowledgeRequest, ShareAcknowledgeResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';
import { may } from './authz';
import { byTopic, leadsHere } from './share-fetch';
import { shareMemberRefusal } from './share-group-gates';

export const shareAcknowledgeHandler: ApiHandler<ShareAcknowledgeRequest, ShareAcknowledgeResponse> = {
  apiKey: ApiKey.ShareAcknowledge,
  minVersion: 1,
  maxVersion: 1,
  async handle(ctx, req) {
    const refusal = (errorCode: number, errorMessage: string | null): ShareAcknowledgeResponse => ({
      throttleTimeMs: 0,
      errorCode,
      errorMessage,
      responses: [],
      nodeEndpoints: [],
    });
    const groupId = req.groupId ?? '';
    const memberId = req.memberId ?? '';
    const refused = shareMemberRefusal(ctx, 'ShareAcknowledge', groupId, memberId);
    if (refused) return refusal(refused.errorCode, refused.errorMessage);
    const out = await ctx.broker.shareGroups.fetcher.handle({
      groupId,
      memberId,
      shareSessionEpoch: req.shareSessionEpoch,
      maxWaitMs: 0,
      maxBytes: 0,
      maxRecords: 0,
      topics: req.topics.map((t) => ({
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          acknowledgementBatches: p.acknowledgementBatches,
        })),
      })),
      forgotten: [],
      mayRead: (name) => may(ctx, 'READ', 'TOPIC', name),
      connectionId: ctx.connectionId,
      leads: leadsHere(ctx),
      fetch: false,
    });
    if (out.errorCode !== ErrorCode.NONE) return refusal(out.errorCode, out.errorMessage);
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      responses: byTopic(ctx, out.partitions).map(({ topicId, parts, currentLeader }) => ({
        topicId,
        partitions: parts.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: p.errorCode,
          errorMessage: null,
          currentLeader,
        })),
      })),
      nodeEndpoints: [],
    };
  },
};
