// What the compaction contract (contract-compaction.ts) builds its cases from: keyed batches, the
// cleaner run until idle, and a partition's log as [offset, key, value] rows.
import { CompressionType } from '../../src/protocol/compression';
import {
  decodeRecords,
  encodeRecordBatch,
  isControl,
  readBatchHeader,
  verifyBatchCrc,
} from '../../src/protocol/record-batch';
import type { CleanerOptions } from '../../src/storage/compaction/cleaner';
import type { AsyncStorage, PartitionAppend } from '../../src/storage/storage';
import { NOW_MS } from './fixtures';

export type Kv = [key: string | null, value: string | null];

export interface KeyedOptions {
  codec?: CompressionType;
  timestampMs?: number;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  transactional?: boolean;
}

export function keyed(records: Kv[], o: KeyedOptions = {}): PartitionAppend['batches'][number] {
  const data = encodeRecordBatch({
    records: records.map(([k, v]) => ({
      key: k === null ? null : Buffer.from(k),
      value: v === null ? null : Buffer.from(v),
      timestamp: BigInt(o.timestampMs ?? NOW_MS - 60_000),
    })),
    compression: o.codec ?? CompressionType.None,
    producerId: BigInt(o.producerId ?? -1),
    producerEpoch: o.producerEpoch ?? -1,
    baseSequence: o.baseSequence ?? -1,
    isTransactional: o.transactional ?? false,
  });
  return { header: readBatchHeader(data), data };
}

/** Runs compaction steps until idle (bounded). */
export async function compact(s: AsyncStorage, nowMs = NOW_MS, opts: CleanerOptions = {}): Promise<number> {
  let passes = 0;
  for (let i = 0; i < 10_000; i++) {
    const r = await s.compactStep(nowMs, opts);
    if (r.passDone) passes++;
    if (!r.working) return passes;
  }
  throw new Error('compaction did not go idle');
}

/** Every record from the log start: [offset, key, value]; markers as [offset, 'MARKER', type]. */
export async function view(
  s: AsyncStorage,
  topic = 't',
  partition = 0,
): Promise<[number, string | null, string | null][]> {
  const out: [number, string | null, string | null][] = [];
  const { logStartOffset } = (await s.offsets(topic, partition))!;
  for (const b of (await s.read(topic, partition, logStartOffset, 1e9)).batches) {
    expect(verifyBatchCrc(b)).toBe(true);
    const h = readBatchHeader(b);
    for (const r of decodeRecords(b)) {
      const offset = Number(h.baseOffset) + r.offsetDelta;
      if (isControl(h.attributes)) out.push([offset, 'MARKER', String(r.key!.readInt16BE(2))]);
      else out.push([offset, r.key?.toString() ?? null, r.value?.toString() ?? null]);
    }
  }
  return out;
}

export async function headers(s: AsyncStorage, topic = 't') {
  return (await s.read(topic, 0, (await s.offsets(topic, 0))!.logStartOffset, 1e9)).batches.map((b) =>
    readBatchHeader(b),
  );
}
