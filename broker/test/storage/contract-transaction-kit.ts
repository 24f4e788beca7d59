// What the transactions contract parts share (contract-transactions.ts: the coordinator's state;
// contract-transaction-log.ts: what transactions do to the log): a transactional batch, a marker
// decoded, and per contract a topic t with an Ongoing transaction.
import { Attribute, decodeRecords, readBatchHeader, verifyBatchCrc } from '../../src/protocol/record-batch';
import type { TransactionInfo } from '../../src/storage/storage';
import { batch, NOW_MS, part } from './fixtures';
import type { ContractContext } from './fixtures';

export const LATER = NOW_MS + 5000;

/** A transactional batch of the transaction's producer at its current epoch. */
export const txBatch = (info: TransactionInfo, baseSequence: number, records = 1) =>
  batch({ producerId: info.producerId, producerEpoch: info.producerEpoch, baseSequence, records, transactional: true });

/** What a marker batch says: its offset, producer, epoch, and type (0 ABORT, 1 COMMIT). */
export function marker(data: Buffer) {
  const h = readBatchHeader(data);
  const [rec] = decodeRecords(data);
  return {
    offset: Number(h.baseOffset),
    control: (h.attributes & Attribute.Control) !== 0,
    transactional: (h.attributes & Attribute.Transactional) !== 0,
    producerId: Number(h.producerId),
    producerEpoch: h.producerEpoch,
    baseSequence: h.baseSequence,
    records: h.recordsCount,
    keyVersion: rec!.key!.readInt16BE(0),
    type: rec!.key!.readInt16BE(2),
    valueVersion: rec!.value!.readInt16BE(0),
    coordinatorEpoch: rec!.value!.readInt32BE(2),
    crcOk: verifyBatchCrc(data),
  };
}

/** The transactions contracts' steps on the storage under test. */
export function transactionSteps(ctx: ContractContext) {
  const s = () => ctx.s;
  const begin = async (id = 'tx', partitions = [0], groups: string[] = []) => {
    if (!(await s().topic('t'))) await s().createTopic('t', 2, {});
    await s().initTransaction(id, 60000, NOW_MS);
    return await s().addToTransaction(
      id,
      partitions.map((p) => ({ topic: 't', partition: p })),
      groups,
      NOW_MS + 1,
    );
  };
  const plain = async (topic = 't', partition = 0) =>
    (await s().append([part(topic, partition, [batch()])], NOW_MS))[0]!;
  const readAll = async (partition = 0, from = 0, committed = false) =>
    await s().read('t', partition, from, 1e9, true, committed);
  return { s, begin, plain, readAll };
}
