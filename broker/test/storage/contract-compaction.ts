// Contract part: compaction (issue 17, docs/compaction.md): the latest value per key, offsets kept
// (gaps), rewritten batches' headers, tombstone and marker lifetimes, min.compaction.lag.ms, the
// last stable offset, idempotent producers' newest batches, and produce between steps.
import { CompressionType } from '../../src/protocol/compression';
import { ErrorCode } from '../../src/protocol/error-codes';
import { readBatchHeader } from '../../src/protocol/record-batch';
import type { PartitionAppend } from '../../src/storage/storage';
import { NOW_MS, part } from './fixtures';
import type { ContractContext } from './fixtures';
import { compact, headers, keyed, type Kv, view } from './contract-compaction-kit';

export function compactionContract(ctx: ContractContext): void {
  describe('compaction', () => {
    const s = () => ctx.s;
    const append = async (...batches: PartitionAppend['batches']) => {
      const r = (await s().append([part('t', 0, batches)], NOW_MS))[0]!;
      expect(r.errorCode).toBe(ErrorCode.NONE);
      return r;
    };

    it('keeps the latest value per key, with the offsets it had', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact' });
      await append(
        keyed([['a', '1']]),
        keyed([['b', '2']]),
        keyed([['a', '3']]),
        keyed([['c', '4']]),
        keyed([['b', '5']]),
      );
      await append(keyed([['a', 'head']])); // the batch holding HW-1 is the "active segment": never cleaned
      expect(await compact(s())).toBe(1);
      expect(await view(s())).toEqual([
        [2, 'a', '3'],
        [3, 'c', '4'],
        [4, 'b', '5'],
        [5, 'a', 'head'],
      ]);
      expect(await s().offsets('t', 0)).toEqual({ logStartOffset: 0, highWatermark: 6 });
      // A fetch inside a gap gets the next batch; ListOffsets earliest is still the log start.
      expect(readBatchHeader((await s().read('t', 0, 1, 1e6)).batches[0]!).baseOffset).toBe(2n);
      expect(await compact(s())).toBe(0); // clean now: nothing dirty enough
    });

    it('answers a fetch inside a gap after a kept batch with the batch after the gap', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact' });
      await append(keyed([['x', '1']]), keyed([['a', '1']]), keyed([['a', '2']]));
      await append(keyed([['a', 'head']])); // the active segment: a=2 stays the latest a before it
      expect(await compact(s())).toBe(1);
      expect((await view(s())).map(([offset]) => offset)).toEqual([0, 2, 3]);
      // The last batch starting at or before offset 1 is [0], which ends before it: not returned.
      const read = await s().read('t', 0, 1, 1e6);
      expect(read.batches.map((b) => readBatchHeader(b).baseOffset)).toEqual([2n, 3n]);
    });

    it('leaves topics without compact alone', async () => {
      await s().createTopic('t', 1, {});
      await append(keyed([['a', '1']]), keyed([['a', '2']]), keyed([['a', '3']]));
      expect(await compact(s())).toBe(0);
      expect(await view(s())).toHaveLength(3);
    });

    it.each([
      ['none', CompressionType.None],
      ['gzip', CompressionType.Gzip],
      ['zstd', CompressionType.Zstd],
    ] as const)('rewrites a %s batch in its codec with its base and last offset', async (_n, codec) => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact' });
      await append(
        keyed(
          [
            ['a', '1'],
            ['b', '2'],
            ['a', '3'],
            ['c', '4'],
          ],
          { codec },
        ),
        keyed([['c', '5']], { codec }),
        keyed([['z', 'head']]),
      );
      await compact(s());
      expect(await view(s())).toEqual([
        [1, 'b', '2'],
        [2, 'a', '3'],
        [4, 'c', '5'],
        [5, 'z', 'head'],
      ]);
      const [first] = await headers(s());
      expect(first).toMatchObject({ baseOffset: 0n, lastOffsetDelta: 3, recordsCount: 2 });
      expect(first!.attributes & 7).toBe(codec);
    });

    it('keeps tombstones for delete.retention.ms, then removes them', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact', 'delete.retention.ms': '1000' });
      await append(keyed([['a', '1']]), keyed([['b', '2']]), keyed([['a', null]]), keyed([['z', 'head']]));
      await compact(s());
      expect(await view(s())).toEqual([
        [1, 'b', '2'],
        [2, 'a', null],
        [3, 'z', 'head'],
      ]);
      await compact(s(), NOW_MS + 500);
      expect(await view(s())).toContainEqual([2, 'a', null]); // a consumer within delete.retention.ms sees the delete
      expect(await compact(s(), NOW_MS + 1000)).toBe(1); // the horizon passed: a pass is due without new data
      expect(await view(s())).toEqual([
        [1, 'b', '2'],
        [3, 'z', 'head'],
      ]);
      expect(await s().offsets('t', 0)).toEqual({ logStartOffset: 0, highWatermark: 4 });
    });

    it('never touches batches younger than min.compaction.lag.ms', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': '10000' });
      await append(
        keyed([['a', 'old1']], { timestampMs: NOW_MS - 20_000 }),
        keyed([['a', 'old2']], { timestampMs: NOW_MS - 20_000 }),
        keyed([['a', 'young']], { timestampMs: NOW_MS - 1000 }),
        keyed([['b', 'young']], { timestampMs: NOW_MS - 1000 }),
        keyed([['z', 'head']], { timestampMs: NOW_MS }),
      );
      await compact(s());
      expect(await view(s())).toEqual([
        [1, 'a', 'old2'],
        [2, 'a', 'young'],
        [3, 'b', 'young'],
        [4, 'z', 'head'],
      ]);
      await compact(s(), NOW_MS + 20_000, {});
      expect((await view(s())).map(([o]) => o)).toEqual([2, 3, 4]);
    });

    it('honours min.cleanable.dirty.ratio and max.compaction.lag.ms', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact' });
      await append(
        keyed([['a', '1']]),
        keyed([['b', '1']]),
        keyed([['c', '1']]),
        keyed([['d', '1']]),
        keyed([['z', 'h']]),
      );
      await compact(s());
      await append(keyed([['a', '2']]), keyed([['z', 'h2']])); // dirty: z=h and a=2 (2 of 6 batches)
      expect((await s().cleanerState('t', 0, NOW_MS))!.dirtyRatio).toBeCloseTo(1 / 3, 2);
      expect(await compact(s())).toBe(0);
      await s().alterTopicConfigs('t', { 'max.compaction.lag.ms': '1000' }, []);
      expect(await compact(s())).toBe(1); // the dirty batch is older than max.compaction.lag.ms
      expect((await view(s())).filter(([, k]) => k === 'a')).toEqual([[5, 'a', '2']]);
    });

    it('drops aborted transactions, keeps committed ones, and stops at the last stable offset', async () => {
      await s().createTopic('t', 1, {
        'cleanup.policy': 'compact',
        'delete.retention.ms': '0',
        'min.cleanable.dirty.ratio': '0',
      });
      const txn = async (id: string) => {
        const info = await s().initTransaction(id, 60000, NOW_MS);
        await s().addToTransaction(id, [{ topic: 't', partition: 0 }], [], NOW_MS);
        return (kv: Kv[], seq: number) =>
          keyed(kv, {
            producerId: info.producerId,
            producerEpoch: info.producerEpoch,
            baseSequence: seq,
            transactional: true,
          });
      };
      const aborted = await txn('A');
      await append(aborted([['a', 'aborted']], 0)); // 0
      await s().endTransaction('A', false, NOW_MS); // 1: ABORT
      const committed = await txn('B');
      await append(committed([['b', 'committed']], 0)); // 2
      await s().endTransaction('B', true, NOW_MS); // 3: COMMIT
      await append(keyed([['c', 'plain']])); // 4
      const open = await txn('C');
      await append(open([['c', 'open']], 0)); // 5: the LSO
      await append(keyed([['c', 'after']])); // 6
      expect(await s().lastStableOffset('t', 0)).toBe(5);
      await compact(s());
      expect(await view(s())).toEqual([
        [1, 'MARKER', '0'],
        [2, 'b', 'committed'],
        [3, 'MARKER', '1'],
        [4, 'c', 'plain'],
        [5, 'c', 'open'],
        [6, 'c', 'after'],
      ]);
      // The aborted batch was its producer's newest: kept empty (RETAIN_EMPTY), offsets intact.
      expect((await headers(s()))[0]).toMatchObject({ baseOffset: 0n, recordsCount: 0, baseSequence: 0 });
      await s().endTransaction('C', true, NOW_MS); // 7: COMMIT; the LSO moves to the end
      await append(keyed([['z', 'head']])); // 8
      await compact(s(), NOW_MS + 1);
      expect(await view(s())).toEqual([
        [1, 'MARKER', '0'], // its transaction's (empty) batch is still there
        [2, 'b', 'committed'],
        [3, 'MARKER', '1'],
        [6, 'c', 'after'],
        [7, 'MARKER', '1'], // C's data is gone but the marker waits one more pass
        [8, 'z', 'head'],
      ]);
    });

    it('an aborted update does not supersede the value before it', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact' });
      await append(keyed([['a', 'kept']])); // 0
      const info = await s().initTransaction('A', 60000, NOW_MS);
      await s().addToTransaction('A', [{ topic: 't', partition: 0 }], [], NOW_MS);
      await append(
        keyed([['a', 'aborted']], {
          producerId: info.producerId,
          producerEpoch: info.producerEpoch,
          baseSequence: 0,
          transactional: true,
        }),
      ); // 1
      await s().endTransaction('A', false, NOW_MS); // 2: ABORT
      await append(keyed([['z', 'head']])); // 3
      await compact(s());
      expect((await view(s())).filter(([, k]) => k !== 'MARKER')).toEqual([
        [0, 'a', 'kept'],
        [3, 'z', 'head'],
      ]);
    });

    it("keeps an idempotent producer's newest batch, empty, so its sequences still answer", async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact' });
      const { producerId } = await s().initProducerId(null, NOW_MS);
      const p = (kv: Kv[], seq: number) => keyed(kv, { producerId, producerEpoch: 0, baseSequence: seq });
      const last = p([['a', '2']], 1);
      await append(p([['a', '1']], 0), last);
      await append(keyed([['a', '3']]), keyed([['z', 'head']]));
      await compact(s());
      expect(await view(s())).toEqual([
        [2, 'a', '3'],
        [3, 'z', 'head'],
      ]);
      expect((await headers(s()))[0]).toMatchObject({
        baseOffset: 1n,
        recordsCount: 0,
        producerId: BigInt(producerId),
        baseSequence: 1,
      });
      const retry = keyed([['a', '2']], { producerId, producerEpoch: 0, baseSequence: 1 });
      expect((await s().append([part('t', 0, [retry])], NOW_MS))[0]).toMatchObject({ errorCode: 0, baseOffset: 1 });
      const next = keyed([['a', '4']], { producerId, producerEpoch: 0, baseSequence: 2 });
      expect((await s().append([part('t', 0, [next])], NOW_MS))[0]).toMatchObject({ errorCode: 0, baseOffset: 4 });
    });

    it('drops keyless records (written before the topic became compacted)', async () => {
      await s().createTopic('t', 1, {});
      await append(keyed([[null, 'x']]), keyed([['a', '1']]), keyed([['z', 'head']]));
      await s().alterTopicConfigs('t', { 'cleanup.policy': 'compact' }, []);
      await compact(s());
      expect((await view(s())).map(([o]) => o)).toEqual([1, 2]);
    });

    it('lets produce run between steps', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact' });
      for (let i = 0; i < 50; i++) await append(keyed([[`k${i % 5}`, `v${i}`]]));
      let steps = 0;
      for (let i = 0; i < 300; i++) {
        const r = await s().compactStep(NOW_MS, { stepBytes: 1 });
        if (!r.working) break;
        await append(keyed([[`k${i % 5}`, `during${i}`]]));
        steps++;
      }
      expect(steps).toBeGreaterThan(10);
      await compact(s());
      const v = await view(s());
      const hw = (await s().offsets('t', 0))!.highWatermark;
      // Each key's latest value is there, once (the head batch may hold one more).
      for (let k = 0; k < 5; k++) {
        const latest = v.filter(([, key]) => key === `k${k}`);
        expect(latest.length).toBeGreaterThanOrEqual(1);
        expect(latest.length).toBeLessThanOrEqual(2);
      }
      expect(v[v.length - 1]![0]).toBe(hw - 1);
    });

    it('keeps data on compact-only topics past retention; compact,delete does both', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact', 'retention.ms': '1000' });
      await s().createTopic('u', 1, { 'cleanup.policy': 'compact,delete', 'retention.ms': '1000' });
      await s().append(
        [part('t', 0, [keyed([['a', '1']])]), part('u', 0, [keyed([['a', '1']]), keyed([['b', '1']])])],
        NOW_MS,
      );
      await s().enforceRetention(NOW_MS, { retentionMs: -1, retentionBytes: -1 }, 100);
      expect((await s().offsets('t', 0))!.logStartOffset).toBe(0);
      expect((await s().offsets('u', 0))!.logStartOffset).toBe(2);
    });

    it('reports the dirty ratio, clean offset and last pass', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact' });
      await append(keyed([['a', '1']]), keyed([['a', '2']]), keyed([['z', 'head']]));
      expect(await s().cleanerState('t', 0, NOW_MS)).toMatchObject({
        compacted: true,
        cleanOffset: 0,
        firstUncleanableOffset: 2,
        dirtyRatio: 1,
        lastCleanedMs: -1,
      });
      await compact(s());
      const state = (await s().cleanerState('t', 0, NOW_MS))!;
      expect(state).toMatchObject({ cleanOffset: 2, dirtyRatio: 0, lastCleanedMs: NOW_MS });
      expect(state.lastBytesAfter).toBeLessThan(state.lastBytesBefore);
      expect(await s().cleanerState('t', 9, NOW_MS)).toBeUndefined();
      if (ctx.reopen) {
        await ctx.reopen();
        expect(await s().cleanerState('t', 0, NOW_MS)).toMatchObject({ cleanOffset: 2, lastCleanedMs: NOW_MS });
        expect((await view(s())).map(([o]) => o)).toEqual([1, 2]);
      }
    });

    it('cleans in several passes when the key map is full (a prefix per pass)', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0' });
      for (let round = 0; round < 3; round++) for (let k = 0; k < 10; k++) await append(keyed([[`k${k}`, `${round}`]]));
      await append(keyed([['z', 'head']]));
      // Room for 3 keys per pass (80 bytes an entry).
      expect(await compact(s(), NOW_MS, { dedupeBytes: 240 })).toBeGreaterThan(3);
      expect(await view(s())).toEqual([
        ...Array.from({ length: 10 }, (_, k): [number, string, string] => [20 + k, `k${k}`, '2']),
        [30, 'z', 'head'],
      ]);
    });

    it('waits minPassIntervalMs before cleaning a partition again', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0' });
      await append(keyed([['a', '1']]), keyed([['a', '2']]), keyed([['z', 'head']]));
      expect(await compact(s(), NOW_MS, { minPassIntervalMs: 1000 })).toBe(1);
      await append(keyed([['a', '3']]), keyed([['z', 'head2']]));
      expect(await compact(s(), NOW_MS + 999, { minPassIntervalMs: 1000 })).toBe(0);
      expect(await compact(s(), NOW_MS + 1000, { minPassIntervalMs: 1000 })).toBe(1);
    });

    it('forgets a pass whose topic was deleted', async () => {
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact' });
      for (let i = 0; i < 20; i++) await append(keyed([['a', `${i}`]]));
      await s().compactStep(NOW_MS, { stepBytes: 1 });
      await s().deleteTopic('t');
      await s().createTopic('t', 1, { 'cleanup.policy': 'compact' });
      await append(keyed([['a', 'new']]));
      await compact(s());
      expect(await view(s())).toEqual([[0, 'a', 'new']]);
    });
  });
}
