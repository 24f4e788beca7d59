// Normalises decoded Kafka responses (volatile ids, times, hosts) and diffs minnow's answer
// against Kafka's field by field: error codes at every level, null vs empty, array shapes.
import { errorName } from '../src/protocol/error-codes';
import { readBatchHeader, splitBatches } from '../src/protocol/record-batch';

/** What one request got: a decoded body, or what happened on the wire instead. */
export type Outcome = { kind: 'response'; body: unknown } | { kind: 'no-response'; detail: string }; // connection closed, timed out or undecodable

/**
 * Fields whose value differs between any two brokers (or runs): ids the broker makes up, clocks,
 * addresses. A value is replaced by a placeholder but sentinels (-1, null, "", 0 for times) stay,
 * so "Kafka sent -1 where minnow sent a time" still shows.
 */
const VOLATILE_FIELDS = new Set([
  'throttleTimeMs',
  'clusterId',
  'controllerId',
  'nodeId',
  'leaderId',
  'coordinatorId',
  'brokerId',
  'host',
  'port',
  'topicId',
  'memberId',
  'leader',
  'sessionId',
  'producerId',
  'transactionStartTimeMs',
  'logAppendTimeMs',
  'lastTimestamp',
  'timestamp',
  'finalizedFeaturesEpoch',
  'currentLeader',
  'replicaNodes',
  'isrNodes',
  'offlineReplicas',
  'eligibleLeaderReplicas',
  'lastKnownElr',
]);

/** Error messages are free text: only whether one was sent (null vs text) is compared. */
const MESSAGE_FIELDS = new Set(['errorMessage', 'message']);

function isSentinel(v: unknown): boolean {
  return v === null || v === -1 || v === -1n || v === '' || v === undefined;
}

function volatile(v: unknown): unknown {
  if (isSentinel(v)) return v;
  if (Array.isArray(v)) return v.map(volatile);
  if (typeof v === 'object') return v; // structs under a volatile name (currentLeader) are walked by normalise
  return '<volatile>';
}

/** A record set is summarised as its batches' shapes; the bytes themselves carry times and CRCs. */
function summariseRecords(buf: Buffer): unknown {
  if (buf.length === 0) return { recordBatches: [] };
  try {
    const { batches, trailingBytes } = splitBatches(buf);
    return {
      recordBatches: batches.map((b) => {
        const h = readBatchHeader(b);
        return {
          baseOffset: Number(h.baseOffset),
          lastOffsetDelta: h.lastOffsetDelta,
          recordsCount: h.recordsCount,
          magic: h.magic,
        };
      }),
      trailingBytes,
    };
  } catch (err) {
    return { undecodableRecords: buf.length };
  }
}

export function normalise(value: unknown, key = ''): unknown {
  if (MESSAGE_FIELDS.has(key))
    return value === null || value === undefined ? value : typeof value === 'string' ? '<text>' : value;
  if (Buffer.isBuffer(value)) return key === 'records' ? summariseRecords(value) : `<${value.length} bytes>`;
  if (typeof value === 'bigint') return VOLATILE_FIELDS.has(key) ? volatile(value) : Number(value);
  if (Array.isArray(value)) {
    if (VOLATILE_FIELDS.has(key)) return value.map(() => '<volatile>');
    return value.map((e) => normalise(e));
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = normalise(v, k);
    return out;
  }
  if (VOLATILE_FIELDS.has(key)) return volatile(value);
  return value;
}

export interface Difference {
  /** e.g. topics[name=t1].partitions[0].errorCode */
  path: string;
  kind: 'value' | 'only-in-kafka' | 'only-in-minnow' | 'null-vs-empty' | 'outcome';
  minnow: unknown;
  kafka: unknown;
}

/** Fields that identify an element of an array, so arrays compare by key and not by position. */
const KEY_FIELDS = [
  'name',
  'topic',
  'topicName',
  'apiKey',
  'partitionIndex',
  'partition',
  'groupId',
  'resourceName',
  'key',
  'index',
];

function keyFieldOf(a: unknown[], b: unknown[]): string | undefined {
  const all = [...a, ...b];
  if (all.length === 0 || !all.every((e) => e !== null && typeof e === 'object' && !Array.isArray(e))) return undefined;
  for (const k of KEY_FIELDS) {
    if (!all.every((e) => k in (e as object))) continue;
    const uniqueIn = (xs: unknown[]) => new Set(xs.map((e) => String((e as any)[k]))).size === xs.length;
    if (uniqueIn(a) && uniqueIn(b)) return k;
  }
  return undefined;
}

function isEmpty(v: unknown): boolean {
  return (
    (Array.isArray(v) && v.length === 0) ||
    v === '' ||
    (Buffer.isBuffer(v) && v.length === 0) ||
    (typeof v === 'object' && v !== null && 'recordBatches' in v && (v as any).recordBatches.length === 0)
  );
}

function show(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? 'undefined';
}

/** Diffs two normalised values; `path` names where they sit. */
export function diff(minnow: unknown, kafka: unknown, path = ''): Difference[] {
  if (minnow === kafka) return [];
  if ((minnow === null && isEmpty(kafka)) || (kafka === null && isEmpty(minnow)))
    return [{ path, kind: 'null-vs-empty', minnow, kafka }];
  if (Array.isArray(minnow) && Array.isArray(kafka)) {
    const key = keyFieldOf(minnow, kafka);
    const out: Difference[] = [];
    if (key) {
      const byKey = (xs: unknown[]) => new Map(xs.map((e) => [String((e as any)[key]), e]));
      const m = byKey(minnow);
      const k = byKey(kafka);
      for (const [id, e] of m) if (k.has(id)) out.push(...diff(e, k.get(id), `${path}[${key}=${id}]`));
      for (const [id, e] of m)
        if (!k.has(id))
          out.push({ path: `${path}[${key}=${id}]`, kind: 'only-in-minnow', minnow: e, kafka: undefined });
      for (const [id, e] of k)
        if (!m.has(id)) out.push({ path: `${path}[${key}=${id}]`, kind: 'only-in-kafka', minnow: undefined, kafka: e });
      return out;
    }
    const n = Math.max(minnow.length, kafka.length);
    for (let i = 0; i < n; i++) {
      const p = `${path}[${i}]`;
      if (i >= minnow.length) out.push({ path: p, kind: 'only-in-kafka', minnow: undefined, kafka: kafka[i] });
      else if (i >= kafka.length) out.push({ path: p, kind: 'only-in-minnow', minnow: minnow[i], kafka: undefined });
      else out.push(...diff(minnow[i], kafka[i], p));
    }
    return out;
  }
  const isObj = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(minnow) && isObj(kafka)) {
    const out: Difference[] = [];
    const m = minnow as Record<string, unknown>;
    const k = kafka as Record<string, unknown>;
    for (const f of new Set([...Object.keys(m), ...Object.keys(k)])) {
      const p = path ? `${path}.${f}` : f;
      if (!(f in k)) out.push({ path: p, kind: 'only-in-minnow', minnow: m[f], kafka: undefined });
      else if (!(f in m)) out.push({ path: p, kind: 'only-in-kafka', minnow: undefined, kafka: k[f] });
      else out.push(...diff(m[f], k[f], p));
    }
    return out;
  }
  if (show(minnow) === show(kafka)) return [];
  return [{ path, kind: 'value', minnow, kafka }];
}

/** Compares what one step got from each broker. */
export function compareOutcomes(minnow: Outcome, kafka: Outcome): Difference[] {
  if (minnow.kind !== kafka.kind) {
    const say = (o: Outcome) => (o.kind === 'response' ? 'a response' : `no response (${o.detail})`);
    return [{ path: '(outcome)', kind: 'outcome', minnow: say(minnow), kafka: say(kafka) }];
  }
  if (minnow.kind === 'no-response') return [];
  return diff(normalise(minnow.body), normalise((kafka as { body: unknown }).body));
}

/** One allow-listed difference: globs over scenario, step and path (`*` matches anything). */
export interface AllowEntry {
  scenario: string;
  step?: string;
  path: string;
  reason: string;
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(
    '^' +
      glob
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*') +
      '$',
  );
}

export function allowedBy(
  list: readonly AllowEntry[],
  scenario: string,
  step: string,
  d: Difference,
): AllowEntry | undefined {
  return list.find(
    (e) =>
      globToRegExp(e.scenario).test(scenario) &&
      globToRegExp(e.step ?? '*').test(step) &&
      globToRegExp(e.path).test(d.path),
  );
}

/** A value for the report: error codes get their name. */
export function describeValue(path: string, v: unknown): string {
  if (v === undefined) return '(absent)';
  if (/errorCode$|ErrorCode$/.test(path) && typeof v === 'number') return v === 0 ? 'NONE(0)' : `${errorName(v)}(${v})`;
  const s = show(v);
  return s.length > 160 ? s.slice(0, 157) + '...' : s;
}
