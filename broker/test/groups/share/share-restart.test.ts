// Share-partition state survives a restart (KIP-932): what was accepted is not delivered again,
// a released record comes back with its delivery count, an acquisition is given back.
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { openStorage } from '../../../src/storage/open-storage';
import type { AsyncStorage } from '../../../src/storage/storage';
import { ShareGroups } from '../../../src/groups/share/share-groups';
import { AcknowledgeType } from '../../../src/groups/share/share-partition';
import type { ShareFetchInput } from '../../../src/groups/share/share-fetcher';
import { batch, part, NOW_MS } from '../../storage/fixtures';

const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} } as never;
const waiters = { wait: () => Promise.resolve(), notify: () => {} };

function shareGroups(storage: AsyncStorage): ShareGroups {
  return new ShareGroups({ storage, logger: silent, now: () => NOW_MS, fetchWaiters: waiters });
}

describe('share-partition state across a restart (sqlite)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-share-'));
  const url = `sqlite://${path.join(dir, 'share.db')}`;
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('resumes where the group was', async () => {
    let storage = await openStorage(url);
    const topic = await storage.createTopic('jobs', 1, {});
    // One record a batch: MaxRecords is a soft limit aligned to batches, as in Kafka.
    for (let i = 0; i < 4; i++) await storage.append([part('jobs', 0, [batch({ records: 1 })])], NOW_MS);
    const fetch = (
      epoch: number,
      acks: ShareFetchInput['topics'][number]['partitions'][number]['acknowledgementBatches'] = [],
    ): ShareFetchInput => ({
      groupId: 'g',
      memberId: 'm',
      shareSessionEpoch: epoch,
      maxWaitMs: 0,
      maxBytes: 1 << 20,
      maxRecords: 3,
      topics: [{ topicId: topic.topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }],
      forgotten: [],
      mayRead: () => true,
      fetch: true,
    });
    let share = shareGroups(storage);
    // A stored state from offset 0 (what share.auto.offset.reset=earliest would have made).
    await storage.storeSharePartition('g', topic.topicId, 0, { startOffset: 0, endOffset: 0, records: [] });
    const first = await share.fetcher.handle(fetch(0));
    expect(first.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 1 }]);
    const acks = [
      { firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [AcknowledgeType.ACCEPT] },
      { firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [AcknowledgeType.RELEASE] },
    ];
    const second = await share.fetcher.handle({ ...fetch(1, acks), maxRecords: 1 });
    // Offset 1 again (released), offset 2 still held by the member.
    expect(second.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 1n, lastOffset: 1n, deliveryCount: 2 }]);
    await share.writesSettled();
    share.close();
    await storage.close();

    storage = await openStorage(url);
    share = shareGroups(storage);
    const after = await share.fetcher.handle({ ...fetch(0), maxRecords: 10 });
    // Offset 0 stays accepted; 1 (its 2nd delivery) and 2 were held when the broker stopped: they go
    // out again, each with one more delivery.
    expect(after.partitions[0]!.acquiredRecords).toEqual([
      { firstOffset: 1n, lastOffset: 1n, deliveryCount: 3 },
      { firstOffset: 2n, lastOffset: 2n, deliveryCount: 2 },
      { firstOffset: 3n, lastOffset: 3n, deliveryCount: 1 },
    ]);
    await share.writesSettled();
    share.close();
    await storage.close();
  });
});
