// DescribeShareGroupOffsets (key 90, KIP-932): v0, Kafka 4.1's level (v1 adds Lag, KIP-1226, 4.2+).
// Each group needs DESCRIBE (else GROUP_AUTHORIZATION_FAILED), each topic DESCRIBE: with the topics
// named, an unauthorized one answers TOPIC_AUTHORIZATION_FAILED per partition; with none (null: every
// partition the group has state for), it is left out, as Kafka's KafkaApis.describeShareGroup(All)
// OffsetsForGroup. An unknown group, topic or partition answers start offset -1 without an error.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse } from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import type { ApiHandler } from '../context';
import { authorizedNames, may } from './authz';
import { coordinatorGate } from '../cluster-answers';

type Described = DescribeShareGroupOffsetsResponse['groups'][number];

/** Errors.TOPIC_AUTHORIZATION_FAILED.message(). */
const TOPIC_AUTHORIZATION_MESSAGE = 'Topic authorization failed.';

export const describeShareGroupOffsetsHandler: ApiHandler<
  DescribeShareGroupOffsetsRequest,
  DescribeShareGroupOffsetsResponse
> = {
  apiKey: ApiKey.DescribeShareGroupOffsets,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    const offsets = ctx.broker.shareGroups.offsets;
    const groups: Described[] = [];
    for (const g of req.groups) {
      const notHere = may(ctx, 'DESCRIBE', 'GROUP', g.groupId)
        ? await coordinatorGate(ctx, 'group', g.groupId)
        : ErrorCode.GROUP_AUTHORIZATION_FAILED;
      if (notHere !== ErrorCode.NONE) {
        groups.push({ groupId: g.groupId, topics: [], errorCode: notHere, errorMessage: null });
        continue;
      }
      if (g.topics === null) {
        const all = await offsets.describe(g.groupId, null);
        const allowed = authorizedNames(
          ctx,
          'DESCRIBE',
          'TOPIC',
          all.map((t) => t.topicName),
        );
        groups.push({
          groupId: g.groupId,
          topics: all.filter((t) => allowed.has(t.topicName)),
          errorCode: ErrorCode.NONE,
          errorMessage: null,
        });
        continue;
      }
      const allowed = authorizedNames(
        ctx,
        'DESCRIBE',
        'TOPIC',
        g.topics.map((t) => t.topicName),
      );
      const described = await offsets.describe(
        g.groupId,
        g.topics.filter((t) => allowed.has(t.topicName)),
      );
      const refused = g.topics
        .filter((t) => !allowed.has(t.topicName))
        .map((t) => ({
          topicName: t.topicName,
          topicId: ZERO_UUID,
          partitions: t.partitions.map((partitionIndex) => ({
            partitionIndex,
            startOffset: -1n,
            leaderEpoch: 0,
            errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            errorMessage: TOPIC_AUTHORIZATION_MESSAGE,
          })),
        }));
      groups.push({
        groupId: g.groupId,
        topics: [...described, ...refused],
        errorCode: ErrorCode.NONE,
        errorMessage: null,
      });
    }
    return { throttleTimeMs: 0, groups };
  },
};
