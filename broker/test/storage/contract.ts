// The storage contract every engine passes (sqlite://, memory://, postgres://), written against
// AsyncStorage: every call is awaited, so a network engine's answers arrive in order. Each engine's
// test file calls storageContract once; `reopen` adds the persistence checks.
import { ErrorCode } from '../../src/protocol/error-codes';
import { readBatchHeader } from '../../src/protocol/record-batch';
import type { AsyncStorage } from '../../src/storage/storage';
import { aclsContract } from './contract-acls';
import { activeProducersContract } from './contract-active-producers';
import { compactionContract } from './contract-compaction';
import { groupMetadataContract } from './contract-group-metadata';
import { sharePartitionsContract } from './contract-share-partitions';
import { producersContract } from './contract-producers';
import { clientQuotasContract } from './contract-quotas';
import { recordsContract } from './contract-records';
import { retentionContract } from './contract-retention';
import { scramContract } from './contract-scram';
import { topicsContract } from './contract-topics';
import { transactionsContract } from './contract-transactions';
import { transactionsV2Contract } from './contract-transactions-v2';
import { transactionLogContract } from './contract-transaction-log';
import { batch, NOW_MS, part, resend } from './fixtures';
import type { ContractContext, ContractHooks } from './fixtures';

export function storageContract(
  name: string,
  makeStorage: () => Promise<AsyncStorage>,
  reopen?: (s: AsyncStorage) => Promise<AsyncStorage>,
  hooks: ContractHooks = {},
): void {
  describe(`${name} storage contract`, () => {
    let s: AsyncStorage;
    beforeEach(async () => {
      s = await makeStorage();
    });
    afterEach(async () => {
      await s.close();
    });
    const ctx: ContractContext = {
      get s() {
        return s;
      },
      reopen: reopen && (async () => (s = await reopen(s))),
      hooks,
    };

    topicsContract(ctx);
    recordsContract(ctx);
    producersContract(ctx);
    retentionContract(ctx);
    transactionsContract(ctx);
    transactionLogContract(ctx);
    transactionsV2Contract(ctx);
    activeProducersContract(ctx);
    compactionContract(ctx);
    aclsContract(ctx);
    clientQuotasContract(ctx);
    scramContract(ctx);
    groupMetadataContract(ctx);
    sharePartitionsContract(ctx);

    if (reopen) {
      describe('after close and reopen', () => {
        it('keeps topics, batches, offsets, producer state, group offsets and identity', async () => {
          const identity = await s.identity({});
          const topic = await s.createTopic('a', 2, { 'retention.ms': '1000' });
          const { producerId } = await s.initProducerId('tx', NOW_MS);
          const sent = batch({ producerId, producerEpoch: 0, baseSequence: 0, records: 3 });
          await s.append([part('a', 0, [batch(), sent]), part('a', 1, [batch()])], NOW_MS);
          await s.deleteRecords('a', 0, 1);
          await s.commitOffsets('g', [{ topic: 'a', partition: 0, offset: 2, leaderEpoch: 0, metadata: 'm' }], NOW_MS);

          await ctx.reopen!();
          expect(await s.identity({ nodeId: 99 })).toEqual(identity);
          expect(await s.topic('a')).toEqual(topic);
          expect(await s.offsets('a', 0)).toEqual({ logStartOffset: 1, highWatermark: 4 });
          const read = await s.read('a', 0, 1, 1e6);
          expect(read.batches.map((b) => readBatchHeader(b).baseOffset)).toEqual([1n]);
          expect(await s.fetchOffsets('g')).toEqual([
            { topic: 'a', partition: 0, offset: 2, leaderEpoch: 0, metadata: 'm', commitTimestampMs: NOW_MS },
          ]);
          // Producer state survived: a retry is a duplicate, a gap is rejected, the epoch moves on.
          expect((await s.append([part('a', 0, [resend(sent)])], NOW_MS))[0]).toMatchObject({
            errorCode: 0,
            baseOffset: 1,
          });
          const gap = batch({ producerId, producerEpoch: 0, baseSequence: 9 });
          expect((await s.append([part('a', 0, [gap])], NOW_MS))[0]!.errorCode).toBe(
            ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          );
          expect(await s.initProducerId('tx', NOW_MS)).toEqual({ producerId, producerEpoch: 1 });
          expect((await s.initProducerId(null, NOW_MS)).producerId).not.toBe(producerId);
          expect((await s.append([part('a', 1, [batch()])], NOW_MS))[0]!.baseOffset).toBe(1);
        });
      });
    }
  });
}
