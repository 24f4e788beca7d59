// KIP-932 delivery compared with Kafka 4.1.1: one member of a share group fetches two partitions
// whose share-partitions are already initialized (a first fetch before any record: Kafka answers a
// group's very first fetch with whichever share-partition initializes first, a race this scenario
// stays out of; share-fetch-order.test.ts has minnow's side of it), acknowledges per offset
// (accept, release, reject), gets the released record again with delivery count 2, accepts it,
// fetches two batches per partition under a MaxBytes that holds two (one from each), closes its
// share session, and the group's start offsets are described.
import { ApiKey } from '../../src/protocol/api-keys';
import { batch, type Scenario, type ScenarioContext } from '../scenario';
import { enableShareGroups } from './share-groups';

const GROUP = 'sgd-g';
const TOPIC = 'sgd-t';
// Kafka 4.1.1 parses share member ids as Uuids (22 base64url characters).
const MEMBER = 'c2dkLWNvbXBhdC1tZW1iZQ';
const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;

type Acks = Array<{ partition: number; firstOffset: bigint; lastOffset: bigint; types: number[] }>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Joins MEMBER (ShareGroupHeartbeat) and heartbeats until both partitions are assigned to it. */
async function joinUntilAssigned(ctx: ScenarioContext): Promise<void> {
  let epoch = 0;
  for (let i = 0; i < 60; i++) {
    const hb = await ctx.quiet(ApiKey.ShareGroupHeartbeat, 1, {
      groupId: GROUP,
      memberId: MEMBER,
      memberEpoch: epoch,
      rackId: null,
      subscribedTopicNames: epoch === 0 ? [TOPIC] : null,
    });
    if (hb.errorCode === 0) epoch = hb.memberEpoch;
    const assigned = (hb.assignment?.topicPartitions ?? []).reduce(
      (n: number, t: { partitions: number[] }) => n + t.partitions.length,
      0,
    );
    if (assigned === 2) return;
    await sleep(250);
  }
  throw new Error(`${ctx.target}: ${MEMBER} was not assigned both partitions of ${TOPIC}`);
}

export const shareDeliveryScenarios: Scenario[] = [
  {
    name: 'share-delivery',
    about: 'KIP-932 ShareFetch/ShareAcknowledge: two partitions, accept/release/reject, redelivery, session close',
    async run(ctx) {
      await enableShareGroups(ctx);
      const created = await ctx.quiet(ApiKey.CreateTopics, 7, {
        topics: [{ name: TOPIC, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      const topicId: string = created.topics[0].topicId;
      await ctx.waitForTopic(TOPIC);
      await ctx.waitForCoordinator(GROUP);
      await ctx.send('group config share.auto.offset.reset=earliest', ApiKey.IncrementalAlterConfigs, 1, {
        resources: [
          {
            resourceType: 32,
            resourceName: GROUP,
            configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }],
          },
        ],
        validateOnly: false,
      });
      await joinUntilAssigned(ctx);
      let sessionEpoch = 0;
      const fetch = (maxWaitMs: number, acks: Acks = []) => ({
        groupId: GROUP,
        memberId: MEMBER,
        shareSessionEpoch: sessionEpoch++,
        maxWaitMs,
        minBytes: 1,
        maxBytes: 1 << 20,
        maxRecords: 500,
        batchSize: 500,
        topics:
          sessionEpoch === 1 || acks.length > 0
            ? [
                {
                  topicId,
                  partitions: [0, 1].map((partitionIndex) => ({
                    partitionIndex,
                    partitionMaxBytes: 0,
                    acknowledgementBatches: acks
                      .filter((a) => a.partition === partitionIndex)
                      .map((a) => ({
                        firstOffset: a.firstOffset,
                        lastOffset: a.lastOffset,
                        acknowledgeTypes: a.types,
                      })),
                  })),
                },
              ]
            : [],
        forgottenTopicsData: [],
      });
      const acknowledge = (acks: Acks) => ({
        groupId: GROUP,
        memberId: MEMBER,
        shareSessionEpoch: sessionEpoch++,
        topics: [
          {
            topicId,
            partitions: [...new Set(acks.map((a) => a.partition))].map((partitionIndex) => ({
              partitionIndex,
              acknowledgementBatches: acks
                .filter((a) => a.partition === partitionIndex)
                .map((a) => ({ firstOffset: a.firstOffset, lastOffset: a.lastOffset, acknowledgeTypes: a.types })),
            })),
          },
        ],
      });
      // The share session opens and both share-partitions initialize while the topic is empty.
      for (let i = 0; i < 3; i++) await ctx.quiet(ApiKey.ShareFetch, 1, fetch(300));
      for (const [partition, values] of [
        [0, ['a0', 'a1', 'a2']],
        [1, ['b0', 'b1']],
      ] as const) {
        await ctx.quiet(ApiKey.Produce, 9, {
          transactionalId: null,
          acks: -1,
          timeoutMs: 10_000,
          topicData: [{ name: TOPIC, partitionData: [{ index: partition, records: batch([...values]) }] }],
        });
      }
      await ctx.send('fetch two initialized partitions', ApiKey.ShareFetch, 1, fetch(1000));
      await ctx.send(
        'acknowledge: p0 accept, release, reject; p1 accept',
        ApiKey.ShareAcknowledge,
        1,
        acknowledge([
          { partition: 0, firstOffset: 0n, lastOffset: 2n, types: [ACCEPT, RELEASE, REJECT] },
          { partition: 1, firstOffset: 0n, lastOffset: 1n, types: [ACCEPT] },
        ]),
      );
      await ctx.send('fetch the released record again', ApiKey.ShareFetch, 1, fetch(1000));
      await ctx.send(
        'acknowledge a record no longer held',
        ApiKey.ShareAcknowledge,
        1,
        acknowledge([{ partition: 1, firstOffset: 0n, lastOffset: 0n, types: [ACCEPT] }]),
      );
      await ctx.send(
        'accept the redelivered record',
        ApiKey.ShareAcknowledge,
        1,
        acknowledge([{ partition: 0, firstOffset: 1n, lastOffset: 1n, types: [ACCEPT] }]),
      );
      // MaxBytes is split evenly between the partitions read (Kafka's PartitionMaxBytesStrategy
      // UNIFORM): room for two batches gets one from each partition, not two from the first.
      const twoBatches = ['c0', 'c1'].map((v) => batch([v]));
      for (const partition of [0, 1])
        for (const records of twoBatches)
          await ctx.quiet(ApiKey.Produce, 9, {
            transactionalId: null,
            acks: -1,
            timeoutMs: 10_000,
            topicData: [{ name: TOPIC, partitionData: [{ index: partition, records }] }],
          });
      await ctx.send('MaxBytes for two batches over two partitions', ApiKey.ShareFetch, 1, {
        ...fetch(1000),
        maxBytes: twoBatches[0]!.length + twoBatches[1]!.length,
      });
      sessionEpoch = -1;
      await ctx.send('close the share session', ApiKey.ShareFetch, 1, { ...fetch(0), maxRecords: 0 });
      await ctx.quiet(ApiKey.ShareGroupHeartbeat, 1, {
        groupId: GROUP,
        memberId: MEMBER,
        memberEpoch: -1,
        rackId: null,
        subscribedTopicNames: null,
      });
      await ctx.send('start offsets after every record was settled', ApiKey.DescribeShareGroupOffsets, 0, {
        groups: [{ groupId: GROUP, topics: [{ topicName: TOPIC, partitions: [0, 1] }] }],
      });
    },
  },
];
