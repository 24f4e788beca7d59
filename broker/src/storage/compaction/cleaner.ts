// The compactor (Kafka's LogCleaner, docs/compaction.md), shared by every engine through the
// CleanerLog an engine implements. Work comes in bounded steps: Storage.compactStep does one and
// returns, so the server runs them between other requests (never a long stall). A pass over one
// partition: (1) map key -> latest offset over the dirty range [firstDirty, firstUncleanable),
// (2) filter every batch below the end of the mapped range, rewriting the ones that lose records
// (same offsets, codec and producer fields: batch-filter.ts), (3) checkpoint the clean offset.
// The log may answer synchronously or with Promises (postgres://): a step awaits each call.
import { DecodeError } from '../../protocol/errors';
import { ATTRIBUTES, isControl, MAX_TIMESTAMP } from '../../protocol/record-batch';
import { ControlType } from '../control-batch';
import { readRawRecords, rewriteBatch } from './batch-filter';
import { PartitionBusy } from './cleaner-log';
import type { BatchChange, CleanerBatch, CleanerCheckpoint, CleanerLog, View } from './cleaner-log';
import {
  compactionSettings,
  DEFAULT_DEDUPE_BYTES,
  keyId,
  needsCleaning,
  OFFSET_MAP_ENTRY_BYTES,
  rangeSteps,
} from './cleaner-rules';
import type { CleanableRange, CompactionSettings, RangeQueries } from './cleaner-rules';
import { runAsync, runSync } from './maybe';
import type { Steps } from './maybe';
import { TxnTracker } from './txn-tracker';
import type {
  CleanerOptions,
  CleanerPartitionRef,
  CleanerPassResult,
  CleanerState,
  CompactionStepResult,
} from './cleaner-types';

export type { MaybePromise } from './maybe';
export { PartitionBusy } from './cleaner-log';
export type { BatchChange, CleanerBatch, CleanerCheckpoint, CleanerLog } from './cleaner-log';
export type {
  CleanerOptions,
  CleanerPartitionRef,
  CleanerPassResult,
  CleanerState,
  CompactionStepResult,
} from './cleaner-types';

interface Pass extends CleanerPartitionRef {
  topicId: string;
  settings: CompactionSettings;
  phase: 'map' | 'filter';
  /** Next offset to read. */
  pos: number;
  end: number;
  mapEnd: number;
  map: Map<string, number>;
  mapLimit: number;
  tracker: TxnTracker;
  producerNewest: Set<number>;
  bytesBefore: number;
  bytesAfter: number;
  freed: number;
  nextHorizonMs: number;
  rewritten: number;
  deleted: number;
}

const DEFAULT_STEP_BYTES = 512 * 1024;
const DEFAULT_STEP_MS = 5;
/** Batches read per step at most: small batches must not make one step read the whole partition. */
const STEP_BATCHES = 128;
/** How long a partition another cleaner is writing is left alone. */
const BUSY_BACKOFF_MS = 1000;

export class Cleaner {
  private pass: Pass | undefined;
  /** topicId:partition of partitions whose stored batches failed to decode: skipped until restart. */
  private readonly uncleanable = new Set<string>();
  /** topicId:partition -> until when (nowMs) another cleaner has it: not chosen before then. */
  private readonly busyUntil = new Map<string, number>();

  constructor(private readonly log: CleanerLog) {}

  /** The step running now: steps run one after another, whoever calls. */
  private running: Promise<unknown> = Promise.resolve();

  /** Does one bounded piece of work: choosing a partition, a slice of its map, or a slice of its filter. */
  step(nowMs: number, opts: CleanerOptions = {}): Promise<CompactionStepResult> {
    const next = this.running.then(() => this.doStep(nowMs, opts));
    this.running = next.catch(() => undefined);
    return next;
  }

  private async doStep(nowMs: number, opts: CleanerOptions): Promise<CompactionStepResult> {
    if (!this.pass) {
      this.pass = await this.choose(nowMs, opts);
      if (!this.pass) return { working: false };
    }
    const pass = this.pass;
    const view = await this.log.view(pass.topic, pass.partition);
    if (!view || view.topicId !== pass.topicId) {
      this.pass = undefined; // the topic went away meanwhile
      return { working: true };
    }
    const stepBytes = opts.stepBytes ?? DEFAULT_STEP_BYTES;
    const deadline = performance.now() + (opts.stepMs ?? DEFAULT_STEP_MS);
    try {
      if (pass.phase === 'map') await this.mapStep(pass, stepBytes, deadline);
      else if (await this.filterStep(pass, nowMs, stepBytes, deadline)) {
        this.pass = undefined;
        return { working: true, passDone: await this.finish(pass, nowMs) };
      }
    } catch (err) {
      // The pass is dropped (what it applied stays: each slice is whole). A batch that does not
      // decode makes the partition uncleanable until restart, as Kafka's markPartitionUncleanable.
      this.pass = undefined;
      if (err instanceof PartitionBusy) {
        this.busyUntil.set(`${pass.topicId}:${pass.partition}`, nowMs + BUSY_BACKOFF_MS);
        return { working: true };
      }
      if (err instanceof DecodeError) this.uncleanable.add(`${pass.topicId}:${pass.partition}`);
      throw err;
    }
    return { working: true };
  }

  /** The partition's cleaner state; undefined for an unknown partition. */
  state(
    topic: string,
    partition: number,
    nowMs: number,
    brokerDefaults?: Readonly<Record<string, string>>,
  ): Promise<CleanerState | undefined> {
    return runAsync(this.stateSteps(topic, partition, nowMs, brokerDefaults));
  }

  /** state() over a log that answers synchronously (memory, SQLite: Storage.cleanerState is synchronous there). */
  stateSync(
    topic: string,
    partition: number,
    nowMs: number,
    brokerDefaults?: Readonly<Record<string, string>>,
  ): CleanerState | undefined {
    return runSync(this.stateSteps(topic, partition, nowMs, brokerDefaults));
  }

  private *stateSteps(
    topic: string,
    partition: number,
    nowMs: number,
    brokerDefaults?: Readonly<Record<string, string>>,
  ): Steps<CleanerState | undefined> {
    const view = (yield this.log.view(topic, partition)) as View | undefined;
    if (!view) return undefined;
    const settings = compactionSettings(view.configs, brokerDefaults);
    const q = (yield this.log.rangeQueries(topic, partition)) as RangeQueries;
    const range = yield* rangeSteps(view, settings, q, nowMs);
    const last = (yield this.log.lastCheckpoint(topic, partition)) as CleanerCheckpoint | undefined;
    const state: CleanerState = {
      compacted: settings.compact,
      cleanOffset: view.cleanOffset,
      firstUncleanableOffset: range.firstUncleanable,
      dirtyRatio: range.dirtyRatio,
      lastCleanedMs: last?.lastCleanedMs ?? -1,
      lastBytesBefore: last?.bytesBefore ?? 0,
      lastBytesAfter: last?.bytesAfter ?? 0,
    };
    return state;
  }

  private async choose(nowMs: number, opts: CleanerOptions): Promise<Pass | undefined> {
    let best:
      | { ref: CleanerPartitionRef & { topicId: string }; settings: CompactionSettings; range: CleanableRange }
      | undefined;
    for (const p of await this.log.partitions()) {
      const settings = compactionSettings(p.configs, opts.brokerDefaults);
      const key = `${p.topicId}:${p.partition}`;
      if (!settings.compact || this.uncleanable.has(key)) continue;
      if (opts.cleans && !opts.cleans(p.topic, p.partition)) continue;
      if (nowMs < (this.busyUntil.get(key) ?? -Infinity)) continue;
      this.busyUntil.delete(key);
      const view = await this.log.view(p.topic, p.partition);
      if (!view) continue;
      if (opts.minPassIntervalMs) {
        const last = await this.log.lastCheckpoint(p.topic, p.partition);
        if (last && nowMs < last.lastCleanedMs + opts.minPassIntervalMs) continue;
      }
      const q = await this.log.rangeQueries(p.topic, p.partition);
      const range = await runAsync(rangeSteps(view, settings, q, nowMs));
      if (!needsCleaning(range, settings)) continue;
      if (!best || range.dirtyRatio > best.range.dirtyRatio) best = { ref: p, settings, range };
    }
    if (!best) return undefined;
    const { topic, partition, topicId } = best.ref;
    return {
      topic,
      partition,
      topicId,
      settings: best.settings,
      phase: 'map',
      pos: best.range.firstDirty,
      end: best.range.firstUncleanable,
      mapEnd: best.range.firstDirty,
      map: new Map(),
      mapLimit: Math.max(1, Math.floor((opts.dedupeBytes ?? DEFAULT_DEDUPE_BYTES) / OFFSET_MAP_ENTRY_BYTES)),
      tracker: new TxnTracker(await this.log.aborted(topic, partition), best.range.firstDirty),
      producerNewest: new Set(),
      bytesBefore: 0,
      bytesAfter: 0,
      freed: 0,
      nextHorizonMs: -1,
      rewritten: 0,
      deleted: 0,
    };
  }

  /** Maps key -> latest offset (Kafka's buildOffsetMap), skipping markers and aborted batches. */
  private async mapStep(pass: Pass, stepBytes: number, deadline: number): Promise<void> {
    const rows = await this.log.batches(pass.topic, pass.partition, pass.pos, pass.end, stepBytes, STEP_BATCHES);
    let full = false;
    for (const [i, row] of rows.entries()) {
      if (i > 0 && performance.now() > deadline) break;
      if (pass.map.size > 0 && pass.map.size + row.recordCount > pass.mapLimit) {
        full = true; // the map covers a prefix of the dirty range; this pass cleans up to there
        break;
      }
      const attributes = row.data.readInt16BE(ATTRIBUTES);
      if (!isControl(attributes) && !pass.tracker.onBatch(row, attributes)) {
        for (const { record } of readRawRecords(row.data)) {
          if (record.key !== null) pass.map.set(keyId(record.key), row.baseOffset + record.offsetDelta);
        }
      }
      pass.pos = row.lastOffset + 1;
      pass.mapEnd = pass.pos;
    }
    if (full || rows.length === 0 || pass.pos >= pass.end) {
      if (!full) pass.mapEnd = pass.end;
      pass.phase = 'filter';
      pass.pos = 0;
      pass.tracker = new TxnTracker(await this.log.aborted(pass.topic, pass.partition), 0);
      pass.producerNewest = await this.log.producerNewestBatches(pass.topic, pass.partition);
    }
  }

  /** Filters a slice of [log start, mapEnd) and applies it in one transaction; true when the range is done. */
  private async filterStep(pass: Pass, nowMs: number, stepBytes: number, deadline: number): Promise<boolean> {
    const rows = await this.log.batches(pass.topic, pass.partition, pass.pos, pass.mapEnd, stepBytes, STEP_BATCHES);
    const changes: BatchChange[] = [];
    let pos = pass.pos;
    for (const [i, row] of rows.entries()) {
      if (i > 0 && performance.now() > deadline) break;
      const change = this.filterBatch(pass, row, nowMs);
      pass.bytesBefore += row.size;
      if (!change) pass.bytesAfter += row.size;
      else if (change.kind === 'rewrite') {
        pass.bytesAfter += change.data.length;
        pass.rewritten++;
      } else if (change.kind === 'horizon') pass.bytesAfter += row.size;
      else pass.deleted++;
      if (change) changes.push(change);
      const horizon = !change ? row.deleteHorizonMs : change.kind === 'delete' ? -1 : change.deleteHorizonMs;
      // A horizon already passed that left its batch (a marker whose transaction still has data) does
      // not make the next pass due: it would run every step.
      if (horizon > nowMs && (pass.nextHorizonMs < 0 || horizon < pass.nextHorizonMs)) pass.nextHorizonMs = horizon;
      pos = row.lastOffset + 1;
    }
    if (changes.length > 0) pass.freed += await this.log.apply(pass.topic, pass.partition, changes);
    pass.pos = pos; // only once applied: a failed apply (disk full) leaves the pass to be dropped
    return rows.length === 0 || pass.pos >= pass.mapEnd;
  }

  /** Kafka's LogCleaner.cleanInto decisions for one batch: null leaves it as stored. */
  private filterBatch(pass: Pass, row: CleanerBatch, nowMs: number): BatchChange | null {
    const attributes = row.data.readInt16BE(ATTRIBUTES);
    const horizonPassed = row.deleteHorizonMs >= 0 && nowMs >= row.deleteHorizonMs;
    const newHorizon = nowMs + pass.settings.deleteRetentionMs;
    if (isControl(attributes)) {
      const type = markerType(row.data);
      if (type === undefined) return null;
      const canDiscard = pass.tracker.onMarker(row, type === ControlType.Abort);
      // Markers piggy-back on the tombstone horizon (KIP-534): kept delete.retention.ms after their
      // transaction's batches are gone, so a consumer reading from the start still sees them.
      if (row.deleteHorizonMs < 0) return { kind: 'horizon', baseOffset: row.baseOffset, deleteHorizonMs: newHorizon };
      return canDiscard && horizonPassed ? { kind: 'delete', baseOffset: row.baseOffset } : null;
    }
    const aborted = pass.tracker.onBatch(row, attributes);
    const records = readRawRecords(row.data);
    const kept = aborted
      ? []
      : records.filter(({ record }) => {
          if (record.key === null) return false; // Kafka's cleaner drops keyless records
          const latest = pass.map.get(keyId(record.key));
          if (latest !== undefined && row.baseOffset + record.offsetDelta < latest) return false;
          return record.value !== null || !horizonPassed;
        });
    const hasTombstone = kept.some((k) => k.record.value === null);
    const horizon = hasTombstone && row.deleteHorizonMs < 0 ? newHorizon : row.deleteHorizonMs;
    if (kept.length === records.length) {
      return horizon === row.deleteHorizonMs
        ? null
        : { kind: 'horizon', baseOffset: row.baseOffset, deleteHorizonMs: horizon };
    }
    // An emptied batch goes, unless it is its producer's newest (its sequence numbers: RETAIN_EMPTY).
    if (kept.length === 0 && !(row.producerId >= 0 && pass.producerNewest.has(row.baseOffset)))
      return { kind: 'delete', baseOffset: row.baseOffset };
    const data = rewriteBatch(row.data, kept);
    return {
      kind: 'rewrite',
      baseOffset: row.baseOffset,
      data,
      recordCount: kept.length,
      maxTimestamp: Number(data.readBigInt64BE(MAX_TIMESTAMP)),
      deleteHorizonMs: horizon,
    };
  }

  private async finish(pass: Pass, nowMs: number): Promise<CleanerPassResult> {
    await this.log.checkpoint(pass.topic, pass.partition, {
      cleanOffset: pass.mapEnd,
      lastCleanedMs: nowMs,
      bytesBefore: pass.bytesBefore,
      bytesAfter: pass.bytesAfter,
      nextHorizonMs: pass.nextHorizonMs,
    });
    await this.log.reclaim(pass.freed);
    return {
      topic: pass.topic,
      partition: pass.partition,
      cleanOffset: pass.mapEnd,
      bytesBefore: pass.bytesBefore,
      bytesAfter: pass.bytesAfter,
      batchesRewritten: pass.rewritten,
      batchesDeleted: pass.deleted,
    };
  }
}

/** COMMIT or ABORT from a marker's key (version int16, type int16); undefined if unreadable. */
function markerType(data: Buffer): number | undefined {
  try {
    const key = readRawRecords(data)[0]?.record.key;
    return key && key.length >= 4 ? key.readInt16BE(2) : undefined;
  } catch {
    return undefined;
  }
}
