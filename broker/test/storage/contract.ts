// The storage contract every engine passes (sqlite://, memory://; postgres later). Each engine's
// test file calls storageContract once; `reopen` adds the persistence checks.
import { ErrorCode } from '../../src/protocol/error-codes';
import { readBatchHeader } from '../../src/protocol/record-batch';
import type { Storage } from '../../src/storage/storage';
import { compactionContract } from './contract-compaction';
import { producersContract } from './contract-producers';
import { recordsContract } from './contract-records';
import { retentionContract } from './contract-retention';
import { topicsContract } from './contract-topics';
import { transactionsContract } from './contract-transactions';
import { batch, NOW_MS, part, resend } from './fixtures';
import type { ContractContext } from './fixtures';

export function storageContract(name: string, makeStorage: () => Storage, reopen?: (s: Storage) => Storage): void {
  describe(`${name} storage contract`, () => {
    let s: Storage;
    beforeEach(() => {
      s = makeStorage();
    });
    afterEach(() => s.close());
    const ctx: ContractContext = {
      get s() {
        return s;
      },
      reopen: reopen && (() => (s = reopen(s))),
    };

    topicsContract(ctx);
    recordsContract(ctx);
    producersContract(ctx);
    retentionContract(ctx);
    transactionsContract(ctx);
    compactionContract(ctx);

    if (reopen) {
      describe('after close and reopen', () => {
        it('keeps topics, batches, offsets, producer state, group offsets and identity', () => {
          const identity = s.identity({});
          const topic = s.createTopic('a', 2, { 'retention.ms': '1000' });
          const { producerId } = s.initProducerId('tx', NOW_MS);
          const sent = batch({ producerId, producerEpoch: 0, baseSequence: 0, records: 3 });
          s.append([part('a', 0, [batch(), sent]), part('a', 1, [batch()])], NOW_MS);
          s.deleteRecords('a', 0, 1);
          s.commitOffsets('g', [{ topic: 'a', partition: 0, offset: 2, leaderEpoch: 0, metadata: 'm' }], NOW_MS);

          ctx.reopen!();
          expect(s.identity({ nodeId: 99 })).toEqual(identity);
          expect(s.topic('a')).toEqual(topic);
          expect(s.offsets('a', 0)).toEqual({ logStartOffset: 1, highWatermark: 4 });
          const read = s.read('a', 0, 1, 1e6);
          expect(read.batches.map((b) => readBatchHeader(b).baseOffset)).toEqual([1n]);
          expect(s.fetchOffsets('g')).toEqual([
            { topic: 'a', partition: 0, offset: 2, leaderEpoch: 0, metadata: 'm', commitTimestampMs: NOW_MS },
          ]);
          // Producer state survived: a retry is a duplicate, a gap is rejected, the epoch moves on.
          expect(s.append([part('a', 0, [resend(sent)])], NOW_MS)[0]).toMatchObject({ errorCode: 0, baseOffset: 1 });
          const gap = batch({ producerId, producerEpoch: 0, baseSequence: 9 });
          expect(s.append([part('a', 0, [gap])], NOW_MS)[0]!.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
          expect(s.initProducerId('tx', NOW_MS)).toEqual({ producerId, producerEpoch: 1 });
          expect(s.initProducerId(null, NOW_MS).producerId).not.toBe(producerId);
          expect(s.append([part('a', 1, [batch()])], NOW_MS)[0]!.baseOffset).toBe(1);
        });
      });
    }
  });
}
