// `minnow perf consume`: reads a topic as fast as the broker serves it and prints
// kafka-consumer-perf-test's summary. One Fetch per leader covers all its partitions; the next
// Fetch is sent as soon as a response's batch headers give the new positions, before its records
// are decoded, so decoding overlaps the broker's work. MB counts key+value bytes, as Kafka's does.
import { KafkaClient } from '../client/client';
import type { KafkaConnection } from '../client/connection';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { FetchResponse } from '../protocol/messages';
import { BASE_OFFSET, LAST_OFFSET_DELTA, splitBatches } from '../protocol/record-batch';
import { GroupMember, GroupUnusable } from './group';
import type { ConsumeOptions } from './options';
import type { PerfIo } from './io';
import { scanBatch } from './record-scan';
import { CONSUMER_DETAILED_HEADER, CONSUMER_HEADER, consumerDetailedRow, consumerRow, MiB } from './report';

const FETCH_MAX_BYTES = 50 * MiB; // fetch.max.bytes default

export interface ConsumeSummary {
  tool: 'minnow perf consume';
  startedAt: string;
  topic: string;
  group: string | null;
  /** 'group' when the coordinator assigned the partitions, else 'assignment'. */
  mode: 'group' | 'assignment';
  note: string | null;
  partitions: number[];
  records: number;
  bytes: number;
  /** Record batch bytes received (compressed). */
  wireBytes: number;
  fetches: number;
  startMs: number;
  endMs: number;
  elapsedMs: number;
  rebalanceMs: number;
  fetchMs: number;
  mbPerSec: number;
  recordsPerSec: number;
  fetchMbPerSec: number;
  fetchRecordsPerSec: number;
  timedOut: boolean;
  row: string;
}

interface PartitionState {
  partition: number;
  leader: number;
  position: bigint;
  /** Stop here (exclusive) when no --num-records is given. */
  end: bigint | undefined;
}

export async function runConsumePerf(opts: ConsumeOptions, io: PerfIo): Promise<ConsumeSummary> {
  const client = new KafkaClient(opts.bootstrap, { clientId: opts.clientId });
  let member: GroupMember | undefined;
  let report: NodeJS.Timeout | undefined;
  const inflight = new Set<Promise<unknown>>();
  try {
    const meta = await client.topic(opts.topic);
    const startWall = io.wallNow();
    const startMono = io.now();
    let mode: 'group' | 'assignment' = 'assignment';
    let note: string | null = null;
    let assigned = meta.partitions.map((p) => p.partition);
    let committed = new Map<number, bigint>();
    if (opts.group !== undefined) {
      try {
        member = await GroupMember.join(client, opts.group, opts.topic, assigned, opts.clientId);
        assigned = member.partitions;
        committed = await member.committed();
        mode = 'group';
      } catch (err) {
        if (!(err instanceof GroupUnusable)) throw err;
        note = `the group coordinator is not usable (${err.message}); reading all partitions by assignment, without group ${opts.group}`;
        io.err(`note: ${note}`);
      }
    }
    const rebalanceMs = mode === 'group' ? io.now() - startMono : 0;

    const states: PartitionState[] = [];
    for (const p of meta.partitions.filter((x) => assigned.includes(x.partition))) {
      const c = committed.get(p.partition);
      const position =
        c !== undefined && c >= 0n
          ? c
          : await client.listOffset(opts.topic, p.partition, p.leader, opts.fromLatest ? -1n : -2n);
      const end =
        opts.numRecords === undefined ? await client.listOffset(opts.topic, p.partition, p.leader, -1n) : undefined;
      states.push({ partition: p.partition, leader: p.leader, position, end });
    }

    let records = 0;
    let bytes = 0;
    let wireBytes = 0;
    let fetches = 0;
    let lastDataMono = io.now();
    let timedOut = false;
    let endMono = startMono;
    const limit = opts.numRecords ?? Infinity;
    const finished = () =>
      records >= limit || (opts.numRecords === undefined && states.every((s) => s.position >= s.end!));

    if (opts.showDetailedStats) {
      if (!opts.hideHeader) io.out(CONSUMER_DETAILED_HEADER);
      let last = { mono: startMono, bytes: 0, records: 0, first: true };
      report = setInterval(() => {
        const now = io.now();
        io.out(
          consumerDetailedRow({
            timeMs: io.wallNow(),
            totalBytes: bytes,
            totalRecords: records,
            bytes: bytes - last.bytes,
            records: records - last.records,
            elapsedMs: now - last.mono,
            rebalanceMs: last.first ? rebalanceMs : 0,
          }),
        );
        last = { mono: now, bytes, records, first: false };
      }, opts.reportIntervalMs);
    }

    const fetchFrom = (conn: KafkaConnection, v: number, parts: PartitionState[]): Promise<FetchResponse> => {
      fetches++;
      const p = conn.send<FetchResponse>(ApiKey.Fetch, v, {
        replicaId: -1,
        maxWaitMs: opts.fetchMaxWaitMs,
        minBytes: 1,
        maxBytes: Math.max(FETCH_MAX_BYTES, opts.fetchSizeBytes),
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            topic: opts.topic,
            partitions: parts
              .filter((s) => s.end === undefined || s.position < s.end)
              .map((s) => ({
                partition: s.partition,
                currentLeaderEpoch: -1,
                fetchOffset: s.position,
                logStartOffset: -1n,
                partitionMaxBytes: opts.fetchSizeBytes,
              })),
          },
        ],
        forgottenTopicsData: [],
        rackId: '',
      });
      inflight.add(p);
      p.then(
        () => inflight.delete(p),
        () => inflight.delete(p),
      );
      return p;
    };

    const consumeLeader = async (leader: number, parts: PartitionState[]) => {
      const conn = await client.node(leader);
      const v = conn.version(ApiKey.Fetch, 4, 11);
      const byPartition = new Map(parts.map((s) => [s.partition, s]));
      let pending: Promise<FetchResponse> | undefined = fetchFrom(conn, v, parts);
      while (pending) {
        const res = await pending;
        pending = undefined;
        // Advance positions from the batch headers first, and ask for more right away.
        const work: { state: PartitionState; from: bigint; batches: Buffer[] }[] = [];
        for (const t of res.responses) {
          for (const pd of t.partitions) {
            const s = byPartition.get(pd.partitionIndex);
            if (!s) continue;
            if (pd.errorCode !== ErrorCode.NONE)
              throw new Error(`fetch ${opts.topic}/${pd.partitionIndex} at ${s.position}: ${errorName(pd.errorCode)}`);
            if (!pd.records || pd.records.length === 0) continue;
            const { batches } = splitBatches(pd.records);
            if (batches.length === 0) continue;
            const lastBatch = batches[batches.length - 1]!;
            const next = lastBatch.readBigInt64BE(BASE_OFFSET) + BigInt(lastBatch.readInt32BE(LAST_OFFSET_DELTA)) + 1n;
            work.push({ state: s, from: s.position, batches });
            if (next > s.position) s.position = next;
            for (const b of batches) wireBytes += b.length;
          }
        }
        const now = io.now();
        if (work.length > 0) lastDataMono = now;
        const more = parts.some((s) => s.end === undefined || s.position < s.end);
        if (now - lastDataMono > opts.timeoutMs) timedOut = true;
        if (more && !timedOut && records < limit) pending = fetchFrom(conn, v, parts);
        // Then count the records (key + value bytes), up to --num-records.
        for (const w of work) {
          for (const batch of w.batches) {
            if (records >= limit) break;
            const scanned = scanBatch(batch, w.from, w.state.end, limit - records);
            records += scanned.records;
            bytes += scanned.bytes;
          }
        }
        if (records >= limit || finished()) {
          endMono = io.now();
          pending = undefined;
        }
      }
    };

    const byLeader = new Map<number, PartitionState[]>();
    for (const s of states) {
      let list = byLeader.get(s.leader);
      if (!list) byLeader.set(s.leader, (list = []));
      list.push(s);
    }
    if (!finished()) await Promise.all([...byLeader].map(([leader, parts]) => consumeLeader(leader, parts)));
    if (endMono === startMono || timedOut) endMono = io.now();
    if (report) clearInterval(report);

    const elapsedMs = Math.max(1e-3, endMono - startMono);
    const stats = { startMs: startWall, endMs: startWall + elapsedMs, bytes, records, rebalanceMs };
    const row = consumerRow(stats);
    if (timedOut)
      io.err(
        `WARNING: Exiting before consuming the expected number of messages: timeout (${opts.timeoutMs} ms) exceeded. You can use the --timeout option to increase the timeout.`,
      );
    if (!opts.showDetailedStats) {
      if (!opts.hideHeader) io.out(CONSUMER_HEADER);
      io.out(row);
    }
    if (member) {
      const problem =
        (await member.commit(new Map(states.map((s) => [s.partition, s.position])))) ?? member.heartbeatProblem;
      if (problem) io.err(`note: group ${opts.group}: ${problem}`);
    }
    const fetchMs = Math.max(0, elapsedMs - rebalanceMs);
    return {
      tool: 'minnow perf consume',
      startedAt: new Date(startWall).toISOString(),
      topic: opts.topic,
      group: opts.group ?? null,
      mode,
      note,
      partitions: states.map((s) => s.partition),
      records,
      bytes,
      wireBytes,
      fetches,
      startMs: startWall,
      endMs: startWall + elapsedMs,
      elapsedMs,
      rebalanceMs,
      fetchMs,
      mbPerSec: bytes / MiB / (elapsedMs / 1000),
      recordsPerSec: records / (elapsedMs / 1000),
      fetchMbPerSec: fetchMs > 0 ? bytes / MiB / (fetchMs / 1000) : 0,
      fetchRecordsPerSec: fetchMs > 0 ? records / (fetchMs / 1000) : 0,
      timedOut,
      row,
    };
  } finally {
    if (report) clearInterval(report);
    for (const p of inflight) p.catch(() => {});
    await member?.leave();
    client.close();
  }
}
