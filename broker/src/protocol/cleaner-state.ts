// minnow's one extension of DescribeConfigs (server/cleaner-report.ts): a topic's compactor state,
// answered only when a request names this key. Shared by the broker and minnow's client.
export const CLEANER_STATE_KEY = 'minnow.log.cleaner.state';

/** One partition's state as the entry's JSON value carries it. */
export interface PartitionCleanerReport {
  partition: number;
  /** Whether the topic's cleanup.policy holds compact. */
  compacted: boolean;
  /** Offsets below it were cleaned by the last pass. */
  cleanOffset: number;
  firstUncleanableOffset: number;
  /** cleanable bytes / (clean + cleanable bytes), now. */
  dirtyRatio: number;
  /** Last pass: its end (ms since the epoch, -1 never) and the partition's bytes before and after. */
  lastCleanedMs: number;
  lastBytesBefore: number;
  lastBytesAfter: number;
}
