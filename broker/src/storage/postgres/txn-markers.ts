// EndTxn's markers on PostgreSQL (transactions.ts): a COMMIT/ABORT control batch (control-batch.ts)
// at the high watermark of every partition of the transaction, locked beforehand in id order as
// appends lock them; the producer's state moved by a fencing marker, its open transactions ended
// and, on abort, their ranges recorded (Kafka's .txnindex); the high watermarks NOTIFYed.
import type { BatchRow } from '../append-plan';
import { controlBatch } from '../control-batch';
import type { TxnPartition } from '../storage';
import { isLogAppendTime } from '../topic-config';
import { stateAfterMarker } from '../txn-rules';
import type { Queryable } from './db';
import { insertBatchRows, loadProducerStates, saveProducerStates, setHighWatermarks, stateKey } from './log-writes';
import type { LockedPartition } from './log-writes';

/** One marker per locked partition at its high watermark, with the producer's and open txns' rows. */
export async function writeMarkers(
  q: Queryable,
  locked: LockedPartition[],
  marked: readonly (TxnPartition & { logAppendTime: string | null })[],
  producerId: number,
  epoch: number,
  commit: boolean,
  nowMs: number,
): Promise<void> {
  const appendTime = new Map(marked.map((m) => [`${m.topic}\0${m.partition}`, m.logAppendTime]));
  const rows: { partitionId: number; row: BatchRow }[] = [];
  for (const p of locked) {
    const type = appendTime.get(`${p.topic}\0${p.partition}`);
    const logAppendTime = isLogAppendTime(type ? { 'message.timestamp.type': type } : {});
    rows.push({
      partitionId: p.id,
      row: controlBatch(producerId, epoch, commit, p.highWatermark, nowMs, logAppendTime),
    });
    p.highWatermark += 1;
  }
  await insertBatchRows(q, rows);
  // A marker with a newer epoch (a fencing abort) moves the producer there (txn-rules.ts).
  const pairs = locked.map((p) => ({ partitionId: p.id, producerId }));
  const states = await loadProducerStates(q, pairs);
  const changed = [];
  for (const { partitionId } of pairs) {
    const state = stateAfterMarker(states.get(stateKey(partitionId, producerId)), epoch);
    if (state) changed.push({ partitionId, producerId, state });
  }
  await saveProducerStates(q, changed);
  const ended = await q.query<{ partition_id: number; first_offset: number }>(
    'DELETE FROM open_txn WHERE partition_id = ANY($1::bigint[]) AND producer_id = $2 RETURNING partition_id, first_offset',
    [locked.map((p) => p.id), producerId],
  );
  if (!commit && ended.length > 0) {
    const markerOffset = new Map(locked.map((p) => [p.id, p.highWatermark - 1]));
    await q.query(
      `INSERT INTO aborted_txn (partition_id, producer_id, first_offset, last_offset)
       SELECT pa, $2, f, l FROM unnest($1::bigint[], $3::bigint[], $4::bigint[]) AS u(pa, f, l)`,
      [
        ended.map((e) => e.partition_id),
        producerId,
        ended.map((e) => e.first_offset),
        ended.map((e) => markerOffset.get(e.partition_id)!),
      ],
    );
  }
  await setHighWatermarks(q, locked); // NOTIFYed after the commit, as appends are (log-writes.ts)
}
