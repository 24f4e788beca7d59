// share.isolation.level (KIP-932, a GROUP config): read_committed acquires nothing from the last
// stable offset on (an open transaction holds the rest back) and archives the records of aborted
// transactions, never delivering them (Kafka's SharePartition does both); read_uncommitted
// delivers everything.
import { RecordState } from '../../../src/groups/share/share-partition';
import { batch, part, NOW_MS } from '../../storage/fixtures';
import { MEMBER_A, shareKit } from './share-test-kit';

async function setUp(isolation: string | undefined) {
  const kit = shareKit();
  const { storage } = kit;
  const topic = await storage.createTopic('jobs', 1, {});
  if (isolation) kit.share.groupConfigsChanged('g', { 'share.isolation.level': isolation });
  await storage.storeSharePartition('g', topic.topicId, 0, { startOffset: 0, endOffset: 0, records: [] });
  await kit.join(MEMBER_A, ['jobs']);
  // Offset 0 plain; 1-2 an aborted transaction, 3 its marker; 4 plain; 5 an open transaction.
  await storage.append([part('jobs', 0, [batch()])], NOW_MS);
  const txn = await storage.initTransaction('tx', 60_000, NOW_MS);
  const tx = (seq: number, records: number, epoch = txn.producerEpoch) =>
    batch({ producerId: txn.producerId, producerEpoch: epoch, baseSequence: seq, records, transactional: true });
  await storage.addToTransaction('tx', [{ topic: 'jobs', partition: 0 }], [], NOW_MS);
  await storage.append([part('jobs', 0, [tx(0, 2)])], NOW_MS);
  const aborted = await storage.endTransaction('tx', false, NOW_MS);
  await storage.append([part('jobs', 0, [batch()])], NOW_MS);
  await storage.addToTransaction('tx', [{ topic: 'jobs', partition: 0 }], [], NOW_MS);
  const open = await storage.append([part('jobs', 0, [tx(2, 1, aborted.info.producerEpoch)])], NOW_MS);
  expect(open[0]).toMatchObject({ errorCode: 0, baseOffset: 5 });
  return { ...kit, topic };
}

const acquiredOffsets = (ranges: ReadonlyArray<{ firstOffset: bigint; lastOffset: bigint }>) =>
  ranges.flatMap((r) => {
    const out: number[] = [];
    for (let o = Number(r.firstOffset); o <= Number(r.lastOffset); o++) out.push(o);
    return out;
  });

it('read_committed: no record of an aborted or open transaction is acquired; aborted ones are archived', async () => {
  const { share, topic, fetch, storage } = await setUp('read_committed');
  const got = await share.fetcher.handle(fetch(MEMBER_A, topic.topicId, 0));
  // 0, the abort marker (3, which the client acknowledges as a gap) and 4; not 1-2 (aborted) nor 5 (open).
  expect(acquiredOffsets(got.partitions[0]!.acquiredRecords)).toEqual([0, 3, 4]);
  const state = await share.partitions.get('g', topic, 0);
  expect([1, 2].map((o) => state.record(o)?.state)).toEqual([RecordState.ARCHIVED, RecordState.ARCHIVED]);
  expect(state.endOffset).toBe(5);
  // The open transaction commits: its record (5) and marker (6) go out at the next fetch.
  await storage.endTransaction('tx', true, NOW_MS);
  const next = await share.fetcher.handle(fetch(MEMBER_A, topic.topicId, 1));
  expect(acquiredOffsets(next.partitions[0]!.acquiredRecords)).toEqual([5, 6]);
  share.close();
});

it('read_uncommitted (the default) delivers the records of aborted and open transactions', async () => {
  const { share, topic, fetch } = await setUp(undefined);
  const got = await share.fetcher.handle(fetch(MEMBER_A, topic.topicId, 0));
  expect(acquiredOffsets(got.partitions[0]!.acquiredRecords)).toEqual([0, 1, 2, 3, 4, 5]);
  share.close();
});
