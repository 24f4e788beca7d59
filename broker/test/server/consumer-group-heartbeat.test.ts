// ConsumerGroupHeartbeat (KIP-848) through the handler and the wire codec, v0 and v1: a joining
// member gets a member id, epoch and its partitions; ConsumerGroupDescribe shows the group. The
// state machine itself is tested in test/groups/consumer/.
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { apiVersionsBody } from '../../src/server/handlers/api-versions';
import { createHandlers } from '../../src/server/handlers';
import { call, handlerBroker } from './handler-harness';

const handlers = createHandlers();

it('advertises ConsumerGroupHeartbeat v0-1 and ConsumerGroupDescribe v0 in ApiVersions, as Kafka 4.x does', () => {
  const keys = apiVersionsBody(handlers).apiKeys;
  expect(keys).toContainEqual({ apiKey: ApiKey.ConsumerGroupHeartbeat, minVersion: 0, maxVersion: 1 });
  expect(keys).toContainEqual({ apiKey: ApiKey.ConsumerGroupDescribe, minVersion: 0, maxVersion: 0 });
});

it.each([0, 1])('lets a v%i member join and describes the group', async (version) => {
  const { engine, groups, broker } = handlerBroker();
  const topic = engine.createTopic('t', 2, {});
  try {
    const res = await call(broker, ApiKey.ConsumerGroupHeartbeat, version, {
      groupId: 'g',
      memberId: 'm-1',
      memberEpoch: 0,
      rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: ['t'],
      serverAssignor: null,
      topicPartitions: [],
    });
    expect(res).toMatchObject({
      errorCode: ErrorCode.NONE,
      memberId: 'm-1',
      memberEpoch: 1,
      heartbeatIntervalMs: 5000,
    });
    expect(res.assignment).toEqual({ topicPartitions: [{ topicId: topic.topicId, partitions: [0, 1] }] });
    const described = await call(broker, ApiKey.ConsumerGroupDescribe, 0, {
      groupIds: ['g', 'nope'],
      includeAuthorizedOperations: false,
    });
    expect(described.groups[0]).toMatchObject({
      errorCode: 0,
      groupState: 'Stable',
      groupEpoch: 1,
      assignmentEpoch: 1,
      assignorName: 'uniform',
      members: [
        {
          memberId: 'm-1',
          memberEpoch: 1,
          clientId: 'c',
          clientHost: '/127.0.0.1',
          subscribedTopicNames: ['t'],
          assignment: { topicPartitions: [{ topicId: topic.topicId, topicName: 't', partitions: [0, 1] }] },
        },
      ],
    });
    expect(described.groups[1]).toMatchObject({ groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
  } finally {
    groups.close();
  }
});
