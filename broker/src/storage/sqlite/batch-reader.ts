// A fetch's stored batches read from SQLite in one statement (issue 33). Which batches a read returns
// depends on their sizes in order (the first batch always whole under KIP-74, then only what fits,
// nothing at or past the LSO for read_committed), so the read walked the rows' sizes first and then
// read the blobs in a second statement: every table row was visited twice, and each size came back
// as a JS object (14 % of the event loop serving `minnow perf consume`, with the floor lookup). Here
// one statement visits each row once and asks a function of this connection, per row, whether the
// fetch takes it: SQLite evaluates CASE lazily, so a blob is read only for a batch the fetch returns,
// and the loop stops at the first one it does not take.
import type Database from 'better-sqlite3';
import { fitsFetch } from '../log-rules';

/** What one read takes, and what it has taken so far (the SQL function's state during a read). */
interface Take {
  fetchOffset: number;
  maxBytes: number;
  minOneBatch: boolean;
  readCommitted: boolean;
  lastStableOffset: number;
  bytes: number;
  lastReturned: number;
  /** Set by the first batch not taken: the read ends there. */
  done: boolean;
}

export interface BatchesRead {
  batches: Buffer[];
  /** The last offset of the last batch returned (-1: none). */
  lastReturned: number;
}

export class BatchReader {
  private readonly take: Take = {
    fetchOffset: 0,
    maxBytes: 0,
    minOneBatch: true,
    readCommitted: false,
    lastStableOffset: 0,
    bytes: 0,
    lastReturned: -1,
    done: false,
  };
  private readonly fromOffset;

  constructor(db: Database.Database) {
    db.function('minnow_fetch_takes', { deterministic: false, directOnly: true }, (lastOffset, size) =>
      this.takes(lastOffset as number, size as number),
    );
    // From the batch that holds the fetch offset (the last one starting at or before it), or the
    // first after it; a batch ending before the offset (a gap left by compaction) is skipped.
    this.fromOffset = db
      .prepare(
        `SELECT CASE WHEN minnow_fetch_takes(last_offset, size) THEN data END FROM record_batch
         WHERE partition_id = ? AND base_offset >= coalesce(
           (SELECT base_offset FROM record_batch WHERE partition_id = ? AND base_offset <= ?
            ORDER BY base_offset DESC LIMIT 1), ?)
         ORDER BY base_offset`,
      )
      .pluck();
  }

  /** The batches from `fetchOffset` a read returns under log-rules.ts's fitsFetch, the LSO aside. */
  read(
    partitionId: number,
    fetchOffset: number,
    maxBytes: number,
    minOneBatch: boolean,
    readCommitted: boolean,
    lastStableOffset: number,
  ): BatchesRead {
    const t = this.take;
    t.fetchOffset = fetchOffset;
    t.maxBytes = maxBytes;
    t.minOneBatch = minOneBatch;
    t.readCommitted = readCommitted;
    t.lastStableOffset = lastStableOffset;
    t.bytes = 0;
    t.lastReturned = -1;
    t.done = false;
    const batches: Buffer[] = [];
    for (const data of this.fromOffset.iterate(partitionId, partitionId, fetchOffset, fetchOffset)) {
      if (data !== null) batches.push(data as Buffer);
      else if (t.done) break; // leaving the loop resets the statement
    }
    return { batches, lastReturned: t.lastReturned };
  }

  /** Whether the read takes the batch (1) or not (0); the first one it cannot take ends the read. */
  private takes(lastOffset: number, size: number): number {
    const t = this.take;
    if (t.done || lastOffset < t.fetchOffset) return 0;
    if ((t.readCommitted && lastOffset >= t.lastStableOffset) || !fitsFetch(t.bytes, size, t.maxBytes, t.minOneBatch)) {
      t.done = true;
      return 0;
    }
    t.bytes += size;
    t.lastReturned = lastOffset;
    return 1;
  }
}
