// Contract part: the producer state Kafka's tools read and write (active-producers.ts):
// activeProducers (DescribeProducers: kafka-transactions describe-producers, find-hanging) and
// writeTxnMarker (WriteTxnMarkers from kafka-transactions abort, for a hanging transaction).
import { ErrorCode } from '../../src/protocol/error-codes';
import { batch, NOW_MS, part } from './fixtures';
import type { ContractContext } from './fixtures';

const TS = 1_700_000_000_000;

export function activeProducersContract(ctx: ContractContext): void {
  describe('active producers and operator markers', () => {
    const s = () => ctx.s;

    it('lists each producer of a partition with its epoch, last sequence, timestamp and open transaction', async () => {
      await s().createTopic('t', 2, {});
      expect(await s().activeProducers('t', 0)).toEqual([]);
      expect(await s().activeProducers('t', 2)).toBeUndefined();
      expect(await s().activeProducers('nope', 0)).toBeUndefined();
      const plain = await s().initProducerId(null, NOW_MS);
      await s().append([part('t', 0, [batch()])], NOW_MS); // not idempotent: no state
      const idem = (seq: number, records: number, timestampMs: number) =>
        batch({ producerId: plain.producerId, producerEpoch: 0, baseSequence: seq, records, timestampMs });
      await s().append([part('t', 0, [idem(0, 2, TS), idem(2, 3, TS + 100)])], NOW_MS);
      const txn = await s().initTransaction('tx', 60000, NOW_MS);
      await s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], NOW_MS);
      const tb = batch({
        producerId: txn.producerId,
        producerEpoch: txn.producerEpoch,
        baseSequence: 0,
        transactional: true,
        timestampMs: TS + 200,
      });
      await s().append([part('t', 0, [tb])], NOW_MS);

      const listed = await s().activeProducers('t', 0);
      expect(listed).toEqual(
        [
          // The newest batch's max timestamp: records at TS+100 .. TS+102.
          {
            producerId: plain.producerId,
            producerEpoch: 0,
            lastSequence: 4,
            lastTimestamp: TS + 102,
            currentTxnStartOffset: -1,
          },
          {
            producerId: txn.producerId,
            producerEpoch: 0,
            lastSequence: 0,
            lastTimestamp: TS + 200,
            currentTxnStartOffset: 6,
          },
        ].sort((a, b) => a.producerId - b.producerId),
      );
      expect(await s().activeProducers('t', 1)).toEqual([]);
    });

    it('writes an operator ABORT marker that ends the open transaction and hides its records', async () => {
      await s().createTopic('t', 1, {});
      const txn = await s().initTransaction('tx', 60000, NOW_MS);
      await s().addToTransaction('tx', [{ topic: 't', partition: 0 }], [], NOW_MS);
      await s().append([part('t', 0, [batch()])], NOW_MS);
      const tb = batch({
        producerId: txn.producerId,
        producerEpoch: 0,
        baseSequence: 0,
        transactional: true,
        records: 2,
      });
      await s().append([part('t', 0, [tb])], NOW_MS);
      expect(await s().lastStableOffset('t', 0)).toBe(1);

      const r = await s().writeTxnMarker('t', 0, txn.producerId, 0, false, NOW_MS);
      expect(r).toEqual({ errorCode: ErrorCode.NONE, message: null, offset: 3 });
      expect(await s().offsets('t', 0)).toEqual({ logStartOffset: 0, highWatermark: 4 });
      expect(await s().lastStableOffset('t', 0)).toBe(4);
      const committed = await s().read('t', 0, 0, 1e9, true, true);
      expect(committed.abortedTransactions).toEqual([{ producerId: txn.producerId, firstOffset: 1, lastOffset: 3 }]);
      const [state] = (await s().activeProducers('t', 0))!;
      expect(state).toMatchObject({ producerId: txn.producerId, currentTxnStartOffset: -1 });
    });

    it('refuses a marker older than the producer epoch, and one for an unknown partition', async () => {
      await s().createTopic('t', 1, {});
      const p = await s().initProducerId(null, NOW_MS);
      await s().append(
        [part('t', 0, [batch({ producerId: p.producerId, producerEpoch: 3, baseSequence: 0 })])],
        NOW_MS,
      );
      const old = await s().writeTxnMarker('t', 0, p.producerId, 2, false, NOW_MS);
      expect(old).toMatchObject({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, offset: -1 });
      expect(old.message).toContain('epoch 3');
      expect((await s().offsets('t', 0))!.highWatermark).toBe(1);
      expect((await s().writeTxnMarker('t', 5, p.producerId, 3, false, NOW_MS)).errorCode).toBe(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      );
      // A marker for a producer with no open transaction is written and ends nothing, as in Kafka.
      expect(await s().writeTxnMarker('t', 0, p.producerId, 3, true, NOW_MS)).toMatchObject({
        errorCode: 0,
        offset: 1,
      });
      expect(await s().lastStableOffset('t', 0)).toBe(2);
    });
  });
}
