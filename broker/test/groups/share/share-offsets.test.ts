// The share-group offset admin (share-offsets.ts, KIP-932): start offsets as Kafka reports them (-1
// until a share-partition is stored), AlterShareGroupOffsets replacing a loaded share-partition (a
// fetch then starts at the new offset), refusals while the group has members, deleting offsets and
// the group.
import { openStorage } from '../../../src/storage/open-storage';
import type { AsyncStorage } from '../../../src/storage/storage';
import { ShareGroups } from '../../../src/groups/share/share-groups';
import type { ShareFetchInput } from '../../../src/groups/share/share-fetcher';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { batch, part, NOW_MS } from '../../storage/fixtures';

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;
const waiters = { wait: () => Promise.resolve(), notify: () => {} };

describe('share-group offsets admin', () => {
  let storage: AsyncStorage;
  let share: ShareGroups;
  let topicId: string;

  const fetch = (epoch: number): ShareFetchInput => ({
    groupId: 'g',
    memberId: 'm',
    shareSessionEpoch: epoch,
    maxWaitMs: 0,
    maxBytes: 1 << 20,
    maxRecords: 2,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
    forgotten: [],
    mayRead: () => true,
    fetch: true,
  });
  const join = () =>
    share.coordinator.heartbeat({
      groupId: 'g',
      memberId: 'm',
      memberEpoch: 0,
      rackId: null,
      subscribedTopicNames: ['jobs'],
      clientId: 'c',
      clientHost: '/127.0.0.1',
    });

  beforeEach(async () => {
    storage = await openStorage('memory://');
    topicId = (await storage.createTopic('jobs', 2, {})).topicId;
    // Batches of 2 records: MaxRecords (2) is a soft limit aligned to batches, as in Kafka.
    for (let i = 0; i < 3; i++) await storage.append([part('jobs', 0, [batch({ records: 2 })])], NOW_MS);
    share = new ShareGroups({ storage, logger: silent, now: () => NOW_MS, fetchWaiters: waiters });
  });
  afterEach(async () => {
    await share.writesSettled();
    share.close();
    await storage.close();
  });

  it('reports -1 for assigned partitions with nothing stored, and unknown topics', async () => {
    await join();
    expect(await share.offsets.describe('g', null)).toEqual([
      {
        topicName: 'jobs',
        topicId,
        partitions: [0, 1].map((partitionIndex) => expect.objectContaining({ partitionIndex, startOffset: -1n })),
      },
    ]);
    const named = await share.offsets.describe('g', [{ topicName: 'nope', partitions: [3] }]);
    expect(named[0]).toMatchObject({
      topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
      partitions: [{ startOffset: -1n, errorCode: 0 }],
    });
  });

  it('refuses altering and deleting offsets with a member, and for an unknown group', async () => {
    await join();
    expect(await share.offsets.refusal('g')).toMatchObject({ errorCode: ErrorCode.NON_EMPTY_GROUP });
    expect(await share.offsets.refusal('other')).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
    expect(await share.offsets.deleteGroup('g')).toBe(ErrorCode.NON_EMPTY_GROUP);
  });

  it('alters a loaded share-partition: the next fetch starts at the new offset', async () => {
    await join();
    await storage.storeSharePartition('g', topicId, 0, { startOffset: 0, endOffset: 0, records: [] });
    const first = await share.fetcher.handle(fetch(0));
    expect(first.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 }]);
    await share.coordinator.heartbeat({
      groupId: 'g',
      memberId: 'm',
      memberEpoch: -1,
      rackId: null,
      subscribedTopicNames: null,
      clientId: 'c',
      clientHost: '',
    });
    const altered = await share.offsets.alter('g', [
      {
        topicName: 'jobs',
        partitions: [
          { partitionIndex: 0, startOffset: 4n },
          { partitionIndex: 9, startOffset: 0n },
        ],
      },
    ]);
    expect(altered[0]!.partitions.map((p) => p.errorCode)).toEqual([
      ErrorCode.NONE,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    ]);
    expect((await storage.sharePartition('g', topicId, 0))?.startOffset).toBe(4);
    expect((await share.offsets.describe('g', null))[0]!.partitions[0]!.startOffset).toBe(4n);
    await join();
    const again = await share.fetcher.handle({ ...fetch(0), memberId: 'm' });
    expect(again.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 4n, lastOffset: 5n, deliveryCount: 1 }]);
  });

  it('deletes the offsets of a topic, then the group', async () => {
    await storage.storeSharePartition('g', topicId, 0, { startOffset: 3, endOffset: 3, records: [] });
    expect(await share.offsets.isShareGroup('g')).toBe(true);
    const deleted = await share.offsets.deleteOffsets('g', ['jobs', 'nope']);
    expect(deleted.map((t) => t.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    expect(await storage.sharePartition('g', topicId, 0)).toBeUndefined();
    await join();
    await share.coordinator.heartbeat({
      groupId: 'g',
      memberId: 'm',
      memberEpoch: -1,
      rackId: null,
      subscribedTopicNames: null,
      clientId: 'c',
      clientHost: '',
    });
    expect(await share.offsets.deleteGroup('g')).toBe(ErrorCode.NONE);
    expect(share.coordinator.group('g')).toBeUndefined();
    expect(await share.offsets.isShareGroup('g')).toBe(false);
  });
});
