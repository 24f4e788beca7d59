// A ShareFetch's MaxBytes is bounded as a Fetch's is (KafkaApis): by the broker's fetch.max.bytes
// (and the client's quota window), whatever the client asks: the Java share consumer asks 50 MiB,
// and minnow holds a response in memory until the client has read it.
import { ApiKey } from '../../src/protocol/api-keys';
import { batch, part, NOW_MS } from '../storage/fixtures';
import { call, handlerBroker } from './handler-harness';

const MEMBER = 'm1234567890123456789012';

async function fetchedWithBrokerLimit(fetchMaxBytes: number | undefined): Promise<number> {
  const { engine, groups, shareGroups, broker } = handlerBroker();
  if (fetchMaxBytes !== undefined)
    (broker as unknown as { config: { fetchMaxBytes: number } }).config.fetchMaxBytes = fetchMaxBytes;
  const topic = engine.createTopic('jobs', 1, {});
  // Four batches of one 100 kB record each.
  for (let i = 0; i < 4; i++) engine.append([part('jobs', 0, [batch({ records: 1, valueBytes: 100_000 })])], NOW_MS);
  try {
    await call(broker, ApiKey.IncrementalAlterConfigs, 1, {
      resources: [
        {
          resourceType: 32,
          resourceName: 'g',
          configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }],
        },
      ],
      validateOnly: false,
    });
    const hb = await call(broker, ApiKey.ShareGroupHeartbeat, 1, {
      groupId: 'g',
      memberId: MEMBER,
      memberEpoch: 0,
      rackId: null,
      subscribedTopicNames: ['jobs'],
    });
    expect(hb).toMatchObject({ errorCode: 0 });
    const fetched = await call(broker, ApiKey.ShareFetch, 1, {
      groupId: 'g',
      memberId: MEMBER,
      shareSessionEpoch: 0,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 50 * 1024 * 1024,
      maxRecords: 500,
      batchSize: 500,
      topics: [{ topicId: topic.topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
      forgottenTopicsData: [],
    });
    expect(fetched).toMatchObject({ errorCode: 0 });
    const ranges = fetched.responses.flatMap((t: any) => t.partitions.flatMap((p: any) => p.acquiredRecords));
    return ranges.reduce((n: number, r: any) => n + Number(r.lastOffset) - Number(r.firstOffset) + 1, 0);
  } finally {
    groups.close();
    shareGroups.close();
  }
}

it("spends at most the broker's fetch.max.bytes of a ShareFetch that asks for 50 MiB", async () => {
  expect(await fetchedWithBrokerLimit(undefined)).toBe(4); // the default 55 MiB: all of it
  const bounded = await fetchedWithBrokerLimit(250_000);
  expect(bounded).toBeGreaterThanOrEqual(1);
  expect(bounded).toBeLessThan(4);
});
