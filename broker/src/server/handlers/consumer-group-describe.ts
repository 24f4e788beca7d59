// ConsumerGroupDescribe (key 69, KIP-848): v0. Each group needs DESCRIBE (else
// GROUP_AUTHORIZATION_FAILED) and this broker as its coordinator; an id that is not a consumer
// group answers GROUP_ID_NOT_FOUND, as Kafka does (the admin client then uses DescribeGroups).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse } from '../../protocol/messages';
import { describeConsumerGroup, notAConsumerGroup } from '../../groups/consumer/consumer-admin';
import type { ApiHandler } from '../context';
import { authorizedOperations, may } from './authz';
import { coordinatorGate } from '../cluster-answers';

/** "Not requested" in KIP-430. */
const OPERATIONS_NOT_REQUESTED = -2147483648;

export const consumerGroupDescribeHandler: ApiHandler<ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse> = {
  apiKey: ApiKey.ConsumerGroupDescribe,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    const groups = ctx.broker.groups;
    return {
      throttleTimeMs: 0,
      groups: await Promise.all(
        req.groupIds.map(async (groupId) => {
          const notHere = may(ctx, 'DESCRIBE', 'GROUP', groupId)
            ? await coordinatorGate(ctx, 'group', groupId)
            : ErrorCode.GROUP_AUTHORIZATION_FAILED;
          if (notHere !== ErrorCode.NONE)
            return { ...notAConsumerGroup(groupId, false), errorCode: notHere, errorMessage: null };
          const group = groups.consumer.group(groupId);
          const operations = req.includeAuthorizedOperations
            ? authorizedOperations(ctx, 'GROUP', groupId)
            : OPERATIONS_NOT_REQUESTED;
          if (!group) {
            const exists =
              groups.group(groupId) !== undefined || (await groups.storage.fetchOffsets(groupId)).length > 0;
            return { ...notAConsumerGroup(groupId, exists), authorizedOperations: operations };
          }
          await groups.consumer.freshTopics();
          return {
            ...describeConsumerGroup(group, groups.consumer.topicsById(), groups.consumer.assignors[0]!.name),
            authorizedOperations: operations,
          };
        }),
      ),
    };
  },
};
