// GROUP config resources (type 32): IncrementalAlterConfigs sets a group's own configs (checked
// against the broker's bounds, as Kafka's GroupConfig), DescribeConfigs shows them beside the
// defaults, and the consumer coordinator uses them for that group's members at once.
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { GROUP_CONFIG_SOURCE } from '../../src/groups/group-configs';
import { call, handlerBroker } from './handler-harness';

const GROUP = 32;
const alter = (name: string, value: string | null, op = 0) => ({
  resources: [{ resourceType: GROUP, resourceName: 'g', configs: [{ name, configOperation: op, value }] }],
  validateOnly: false,
});

it('sets, describes and uses a consumer group heartbeat interval and session timeout', async () => {
  const { engine, groups, broker } = handlerBroker();
  engine.createTopic('t', 1, {});
  try {
    expect(
      (await call(broker, ApiKey.IncrementalAlterConfigs, 1, alter('consumer.heartbeat.interval.ms', '7000')))
        .responses,
    ).toEqual([expect.objectContaining({ errorCode: ErrorCode.NONE, resourceType: GROUP, resourceName: 'g' })]);
    const described = await call(broker, ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType: GROUP, resourceName: 'g', configurationKeys: null }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    const entries = Object.fromEntries(
      described.results[0].configs.map((c: any) => [c.name, [c.value, c.configSource]] as const),
    );
    expect(entries).toMatchObject({
      'consumer.heartbeat.interval.ms': ['7000', GROUP_CONFIG_SOURCE],
      'consumer.session.timeout.ms': ['45000', 5],
      'share.auto.offset.reset': ['latest', 5],
      'share.record.lock.duration.ms': ['30000', 5],
    });
    const hb = await call(broker, ApiKey.ConsumerGroupHeartbeat, 1, {
      groupId: 'g',
      memberId: 'm',
      memberEpoch: 0,
      rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: ['t'],
      topicPartitions: [],
    });
    expect(hb).toMatchObject({ errorCode: 0, heartbeatIntervalMs: 7000 });
    // Deleted: the broker's default again.
    await call(broker, ApiKey.IncrementalAlterConfigs, 1, alter('consumer.heartbeat.interval.ms', null, 1));
    const again = await call(broker, ApiKey.ConsumerGroupHeartbeat, 1, { groupId: 'g', memberId: 'm', memberEpoch: 1 });
    expect(again).toMatchObject({ errorCode: 0, heartbeatIntervalMs: 5000 });
  } finally {
    groups.close();
  }
});

it.each([
  [
    'consumer.session.timeout.ms',
    '1000',
    /consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms/,
  ],
  ['consumer.heartbeat.interval.ms', '99999', /must be less than or equal to group.consumer.max.heartbeat.interval.ms/],
  ['consumer.heartbeat.interval.ms', 'soon', /Not a number of type INT/],
  ['share.auto.offset.reset', 'never', /share.auto.offset.reset/],
  ['no.such.config', '1', /Unknown group config name: no.such.config/],
])('refuses %s=%s with INVALID_CONFIG', async (name, value, message) => {
  const { groups, broker } = handlerBroker();
  try {
    const r = await call(broker, ApiKey.IncrementalAlterConfigs, 1, alter(name, value));
    expect(r.responses[0]).toMatchObject({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: expect.stringMatching(message),
    });
  } finally {
    groups.close();
  }
});

describe('share-group configs (KIP-932)', () => {
  it.each([
    [
      'share.record.lock.duration.ms',
      '10000',
      /^share.record.lock.duration.ms must be greater than or equal to group.share.min.record.lock.duration.ms$/,
    ],
    [
      'share.record.lock.duration.ms',
      '70000',
      /^share.record.lock.duration.ms must be less than or equal to group.share.max.record.lock.duration.ms$/,
    ],
    [
      'share.session.timeout.ms',
      '30000',
      /^share.session.timeout.ms must be greater than or equal to group.share.min.session.timeout.ms$/,
    ],
    ['share.heartbeat.interval.ms', '20000', /^share.heartbeat.interval.ms must be less than or equal to/],
    ['share.isolation.level', 'serializable', /share.isolation.level: String must be one of/],
  ])('refuses %s=%s with INVALID_CONFIG and Kafka message', async (name, value, message) => {
    const { groups, broker } = handlerBroker();
    try {
      const r = await call(broker, ApiKey.IncrementalAlterConfigs, 1, alter(name, value));
      expect(r.responses[0]).toMatchObject({
        errorCode: ErrorCode.INVALID_CONFIG,
        errorMessage: expect.stringMatching(message),
      });
    } finally {
      groups.close();
    }
  });

  it("checks a group's values against the broker's group.share.* bounds, and a session timeout above the heartbeat", async () => {
    const { groups, broker } = handlerBroker(
      {},
      {
        bounds: {
          shareSessionTimeoutMs: 45_000,
          shareMinSessionTimeoutMs: 2_000,
          shareMaxSessionTimeoutMs: 60_000,
          shareHeartbeatIntervalMs: 5_000,
          shareMinHeartbeatIntervalMs: 1_000,
          shareMaxHeartbeatIntervalMs: 15_000,
          shareRecordLockDurationMs: 30_000,
          shareMinRecordLockDurationMs: 1_000,
          shareMaxRecordLockDurationMs: 60_000,
        },
      },
    );
    try {
      const lock = await call(
        broker,
        ApiKey.IncrementalAlterConfigs,
        1,
        alter('share.record.lock.duration.ms', '2000'),
      );
      expect(lock.responses[0]).toMatchObject({ errorCode: ErrorCode.NONE });
      // 3 s is within the lowered bounds, but not above the (broker's) 5 s heartbeat interval.
      const session = await call(broker, ApiKey.IncrementalAlterConfigs, 1, alter('share.session.timeout.ms', '3000'));
      expect(session.responses[0]).toMatchObject({
        errorCode: ErrorCode.INVALID_CONFIG,
        errorMessage: 'share.session.timeout.ms must be greater than share.heartbeat.interval.ms',
      });
    } finally {
      groups.close();
    }
  });

  it("uses a group's heartbeat interval and lock duration at once", async () => {
    const { engine, groups, shareGroups, broker } = handlerBroker();
    const topic = engine.createTopic('jobs', 1, {});
    try {
      const hb = (epoch: number) =>
        call(broker, ApiKey.ShareGroupHeartbeat, 1, {
          groupId: 'g',
          memberId: 'm1234567890123456789012',
          memberEpoch: epoch,
          rackId: null,
          subscribedTopicNames: epoch === 0 ? ['jobs'] : null,
        });
      expect(await hb(0)).toMatchObject({ errorCode: 0, heartbeatIntervalMs: 5000 });
      await call(broker, ApiKey.IncrementalAlterConfigs, 1, alter('share.heartbeat.interval.ms', '7000'));
      await call(broker, ApiKey.IncrementalAlterConfigs, 1, alter('share.record.lock.duration.ms', '20000'));
      expect(await hb(1)).toMatchObject({ errorCode: 0, heartbeatIntervalMs: 7000 });
      const fetched = await call(broker, ApiKey.ShareFetch, 1, {
        groupId: 'g',
        memberId: 'm1234567890123456789012',
        shareSessionEpoch: 0,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        maxRecords: 10,
        batchSize: 10,
        topics: [{ topicId: topic.topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
        forgottenTopicsData: [],
      });
      expect(fetched).toMatchObject({ errorCode: 0, acquisitionLockTimeoutMs: 20000 });
    } finally {
      groups.close();
      shareGroups.close();
    }
  });
});
