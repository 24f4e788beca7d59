// DescribeProducers and the operator's WriteTxnMarkers on PostgreSQL (the rules:
// ../active-producers.ts). A marker locks its partition as appends do (log-writes.ts) and is written
// by txn-markers.ts, as EndTxn's are; the other brokers hear of the new high watermark by NOTIFY.
import { activeProducer, markerRefusal, newestBatchOffset, unknownPartitionMarker } from '../active-producers';
import type { ActiveProducer, TxnMarkerResult } from '../active-producers';
import { decodeEntries } from '../sqlite/producers';
import type { Db } from './db';
import { loadProducerStates, lockPartitions, partitionKey, stateKey } from './log-writes';
import { writeMarkers } from './txn-markers';

interface ProducerRow {
  producerId: number;
  epoch: number;
  batches: Buffer;
  openFirst: number | null;
}

export async function activeProducers(db: Db, topic: string, partition: number): Promise<ActiveProducer[] | undefined> {
  const [found] = await db.query<{ id: number }>(
    `SELECT p.id FROM partition p JOIN topic t ON t.id = p.topic_id WHERE t.name = $1 AND p.partition_index = $2`,
    [topic, partition],
  );
  if (!found) return undefined;
  const rows = await db.query<ProducerRow>(
    `SELECT s.producer_id AS "producerId", s.epoch, s.batches, o.first_offset AS "openFirst"
     FROM producer_partition s
     LEFT JOIN open_txn o ON o.partition_id = s.partition_id AND o.producer_id = s.producer_id
     WHERE s.partition_id = $1 ORDER BY s.producer_id`,
    [found.id],
  );
  const out: ActiveProducer[] = [];
  for (const r of rows) {
    const state = { producerEpoch: r.epoch, batches: decodeEntries(r.batches) };
    const base = newestBatchOffset(state);
    const [ts] =
      base === undefined
        ? []
        : await db.query<{ t: number }>(
            'SELECT max_timestamp AS t FROM record_batch WHERE partition_id = $1 AND base_offset = $2',
            [found.id, base],
          );
    out.push(activeProducer(r.producerId, state, r.openFirst ?? undefined, ts?.t));
  }
  return out;
}

export async function writeTxnMarker(
  db: Db,
  topic: string,
  partition: number,
  producerId: number,
  epoch: number,
  commit: boolean,
  nowMs: number,
): Promise<TxnMarkerResult> {
  return db.tx(async (q) => {
    const locked = (await lockPartitions(q, [{ topic, partition }])).get(partitionKey(topic, partition));
    if (!locked) return unknownPartitionMarker(topic, partition);
    const states = await loadProducerStates(q, [{ partitionId: locked.id, producerId }]);
    const refused = markerRefusal(states.get(stateKey(locked.id, producerId)), producerId, epoch);
    if (refused) return refused;
    const [config] = await q.query<{ value: string }>(
      `SELECT c.value FROM topic_config c JOIN topic t ON t.id = c.topic_id
       WHERE t.name = $1 AND c.name = 'message.timestamp.type'`,
      [topic],
    );
    const offset = locked.highWatermark;
    await writeMarkers(
      q,
      [locked],
      [{ topic, partition, logAppendTime: config?.value ?? null }],
      producerId,
      epoch,
      commit,
      nowMs,
    );
    return { errorCode: 0, message: null, offset };
  });
}
