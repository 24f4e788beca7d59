// The compactor's types that the Storage interface names (storage.ts imports them from here, not
// from cleaner.ts, so the interface does not depend on the cleaner's implementation: no import cycle).

export interface CleanerPartitionRef {
  topic: string;
  partition: number;
}

export interface CleanerOptions {
  /** Broker-level topic defaults (log.cleanup.policy ... as topic config names). */
  brokerDefaults?: Readonly<Record<string, string>>;
  /** Bytes of batches read per step (default 512 KiB). */
  stepBytes?: number;
  /** A step stops after the batch that took it past this many ms (default 5): produce and fetch wait no longer. */
  stepMs?: number;
  /** Offset map budget (MINNOW_LOG_CLEANER_DEDUPE_BYTES). */
  dedupeBytes?: number;
  /**
   * A partition is not cleaned again until this long after its last pass (the server passes
   * log.cleaner.backoff.ms): with a low min.cleanable.dirty.ratio and steady produce, every new
   * batch would otherwise start another pass over the whole log. Default 0.
   */
  minPassIntervalMs?: number;
  /**
   * The partitions this cleaner may choose (default all). Several brokers on one database each
   * clean the partitions they lead, so they do not all read the same logs; the engine's lock keeps
   * two apart while leadership moves (docs/postgres.md).
   */
  cleans?: (topic: string, partition: number) => boolean;
}

export interface CleanerPassResult extends CleanerPartitionRef {
  cleanOffset: number;
  bytesBefore: number;
  bytesAfter: number;
  batchesRewritten: number;
  batchesDeleted: number;
}

/** One step's outcome: idle (nothing to clean now) or working, with the pass that finished, if one did. */
export interface CompactionStepResult {
  working: boolean;
  passDone?: CleanerPassResult;
}

/** Per partition, for reporting (Storage.cleanerState, `minnow topic describe`). */
export interface CleanerState {
  compacted: boolean;
  cleanOffset: number;
  firstUncleanableOffset: number;
  dirtyRatio: number;
  /** -1 when never cleaned. */
  lastCleanedMs: number;
  lastBytesBefore: number;
  lastBytesAfter: number;
}
