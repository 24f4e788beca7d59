// librdkafka's share consumer closes by sending its leave heartbeat (member epoch -1) and then,
// once its in-flight ShareFetch is answered, the ShareAcknowledge that closes its share session
// (epoch -1) with the last acknowledgements. In Kafka 4.1 a share session is not the group
// coordinator's: it ends with its closing request or its connection (ShareSessionCache), never
// with a leave, so those acknowledgements count. Dropping the session at the leave answered them
// SHARE_SESSION_NOT_FOUND and every record of the last poll was delivered again.
import { openStorage } from '../../../src/storage/open-storage';
import type { AsyncStorage } from '../../../src/storage/storage';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { ShareGroups } from '../../../src/groups/share/share-groups';
import { AcknowledgeType } from '../../../src/groups/share/share-partition';
import type { ShareFetchInput } from '../../../src/groups/share/share-fetcher';
import { batch, part, NOW_MS } from '../../storage/fixtures';

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;
const waiters = { wait: () => Promise.resolve(), notify: () => {} };

describe('a share member that leaves the group before closing its share session', () => {
  let storage: AsyncStorage;
  let share: ShareGroups;
  let topicId: string;
  const request = (memberId: string, epoch: number, fetch: boolean, acks = false): ShareFetchInput => ({
    groupId: 'g',
    memberId,
    shareSessionEpoch: epoch,
    maxWaitMs: 0,
    maxBytes: 1 << 20,
    maxRecords: 10,
    topics: [
      {
        topicId,
        partitions: [
          {
            partitionIndex: 0,
            acknowledgementBatches: acks
              ? [{ firstOffset: 0n, lastOffset: 2n, acknowledgeTypes: [AcknowledgeType.ACCEPT] }]
              : [],
          },
        ],
      },
    ],
    forgotten: [],
    mayRead: () => true,
    fetch,
  });
  const heartbeat = (memberId: string, memberEpoch: number) =>
    share.coordinator.heartbeat({
      groupId: 'g',
      memberId,
      memberEpoch,
      rackId: null,
      subscribedTopicNames: memberEpoch === 0 ? ['jobs'] : null,
      clientId: 'rdkafka',
      clientHost: '/127.0.0.1',
    });

  beforeEach(async () => {
    storage = await openStorage('memory://');
    topicId = (await storage.createTopic('jobs', 1, {})).topicId;
    await storage.append([part('jobs', 0, [batch({ records: 3 })])], NOW_MS);
    await storage.storeSharePartition('g', topicId, 0, { startOffset: 0, endOffset: 0, records: [] });
    share = new ShareGroups({ storage, logger: silent, now: () => NOW_MS, fetchWaiters: waiters });
  });
  afterEach(async () => {
    await share.writesSettled();
    share.close();
    await storage.close();
  });

  it('acknowledges with its closing ShareAcknowledge: the records are not delivered again', async () => {
    expect((await heartbeat('a', 0)).errorCode).toBe(ErrorCode.NONE);
    const fetched = await share.fetcher.handle(request('a', 0, true));
    expect(fetched.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 1 }]);

    expect((await heartbeat('a', -1)).errorCode).toBe(ErrorCode.NONE);
    const closed = await share.fetcher.handle(request('a', -1, false, true));
    expect({ errorCode: closed.errorCode, partitions: closed.partitions.map((p) => p.errorCode) }).toEqual({
      errorCode: ErrorCode.NONE,
      partitions: [ErrorCode.NONE],
    });

    expect((await heartbeat('b', 0)).errorCode).toBe(ErrorCode.NONE);
    const next = await share.fetcher.handle(request('b', 0, true));
    expect(next.partitions.flatMap((p) => p.acquiredRecords)).toEqual([]);
  });

  it('gives its records back when the closing request carries no acknowledgement', async () => {
    await heartbeat('a', 0);
    await share.fetcher.handle(request('a', 0, true));
    await heartbeat('a', -1);
    expect((await share.fetcher.handle(request('a', -1, false))).errorCode).toBe(ErrorCode.NONE);

    await heartbeat('b', 0);
    const next = await share.fetcher.handle(request('b', 0, true));
    expect(next.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 2 }]);
  });
});
