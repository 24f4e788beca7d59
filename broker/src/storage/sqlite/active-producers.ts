// DescribeProducers and the operator's WriteTxnMarkers on SQLite (the rules: ../active-producers.ts).
// The producer states come from producer_partition through the Producers cache (an append may have
// cached them), the open transactions from the partition's cached open_txn rows.
import type Database from 'better-sqlite3';
import { activeProducer, markerRefusal, newestBatchOffset, unknownPartitionMarker } from '../active-producers';
import type { ActiveProducer, TxnMarkerResult } from '../active-producers';
import { controlBatch } from '../control-batch';
import { isLogAppendTime } from '../topic-config';
import type { Producers } from './producers';
import type { Records } from './records';
import type { Topics } from './topics';
import type { Transactor } from './transaction';

export class ActiveProducers {
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
    private readonly topics: Topics,
    private readonly producers: Producers,
    private readonly records: Records,
  ) {
    this.q = {
      ids: db.prepare('SELECT producer_id FROM producer_partition WHERE partition_id = ? ORDER BY producer_id').pluck(),
      maxTimestamp: db
        .prepare('SELECT max_timestamp FROM record_batch WHERE partition_id = ? AND base_offset = ?')
        .pluck(),
    };
  }

  list(topic: string, partition: number): ActiveProducer[] | undefined {
    const entry = this.topics.partition(topic, partition);
    if (!entry) return undefined;
    const out: ActiveProducer[] = [];
    for (const id of this.q.ids.all(entry.id) as number[]) {
      const state = this.producers.state(entry.id, id);
      if (!state) continue;
      const base = newestBatchOffset(state);
      const ts = base === undefined ? undefined : (this.q.maxTimestamp.get(entry.id, base) as number | undefined);
      out.push(activeProducer(id, state, entry.openTxns.get(id), ts));
    }
    return out;
  }

  writeMarker(
    topic: string,
    partition: number,
    producerId: number,
    epoch: number,
    commit: boolean,
    nowMs: number,
  ): TxnMarkerResult {
    return this.tx.run(() => {
      const entry = this.topics.partition(topic, partition);
      if (!entry) return unknownPartitionMarker(topic, partition);
      const refused = markerRefusal(this.producers.state(entry.id, producerId), producerId, epoch);
      if (refused) return refused;
      const offset = entry.highWatermark;
      const logAppendTime = isLogAppendTime(this.topics.configs(topic) ?? {});
      this.records.appendMarker(entry, controlBatch(producerId, epoch, commit, offset, nowMs, logAppendTime), commit);
      return { errorCode: 0, message: null, offset };
    });
  }
}
