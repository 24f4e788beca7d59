// `minnow perf consume`: reads a topic as fast as the broker serves it and prints
// kafka-consumer-perf-test's summary. One Fetch per leader covers all its partitions; the next
// Fetch is sent as soon as a response's batch headers give the new positions, before its records
// are decoded, so decoding overlaps the broker's work. MB counts key+value bytes, as Kafka's does.
import { KafkaClient, PartitionMeta } from '../client/client';
import type { KafkaConnection } from '../client/connection';
import { ApiKey } from '../protocol/api-keys';
import type { FetchResponse } from '../protocol/messages';
import { ConsumeCounters, DetailedStatsReporter } from './consume-counters';
import { advancePositions, FetchedBatches, fetchRequest, PartitionState, wantsMore } from './consume-fetch';
import { GroupMember, GroupUnusable } from './group';
import type { PerfIo } from './io';
import type { ConsumeOptions } from './options';
import { scanBatch } from './record-scan';
import { CONSUMER_DETAILED_HEADER, CONSUMER_HEADER, consumerRow, MiB } from './report';

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

export async function runConsumePerf(opts: ConsumeOptions, io: PerfIo): Promise<ConsumeSummary> {
  const run = new ConsumePerfRun(opts, io);
  try {
    await run.start();
    await run.consume();
    return await run.finish();
  } finally {
    await run.close();
  }
}

/**
 * One consume run: start() finds the partitions (joining the group if asked) and their start and
 * end offsets, consume() reads them, one Fetch loop per leader, finish() prints kafka-consumer-perf-test's
 * row, commits the group's positions and returns the summary.
 */
export class ConsumePerfRun {
  private readonly client: KafkaClient;
  private readonly counters = new ConsumeCounters();
  /** Fetches not yet answered: their rejections are swallowed at close. */
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly limit: number;
  private member: GroupMember | undefined;
  private mode: 'group' | 'assignment' = 'assignment';
  private note: string | null = null;
  private states: PartitionState[] = [];
  private startWall = 0;
  private startMono = 0;
  private endMono = 0;
  private rebalanceMs = 0;
  private detailedStats: DetailedStatsReporter | undefined;

  constructor(
    private readonly opts: ConsumeOptions,
    private readonly io: PerfIo,
  ) {
    this.client = new KafkaClient(opts.bootstrap, {
      clientId: opts.clientId,
      ...(opts.sasl ? { sasl: opts.sasl } : {}),
    });
    this.limit = opts.numRecords ?? Infinity;
  }

  async start(): Promise<void> {
    const meta = await this.client.topic(this.opts.topic);
    this.startWall = this.io.wallNow();
    this.startMono = this.endMono = this.io.now();
    const { assigned, committed } = await this.joinGroup(meta.partitions.map((p) => p.partition));
    this.rebalanceMs = this.mode === 'group' ? this.io.now() - this.startMono : 0;
    const mine = meta.partitions.filter((x) => assigned.includes(x.partition));
    this.states = await this.startPositions(mine, committed);
    this.counters.lastDataMono = this.io.now();
    this.startDetailedStats();
  }

  async consume(): Promise<void> {
    const byLeader = new Map<number, PartitionState[]>();
    for (const s of this.states) {
      let list = byLeader.get(s.leader);
      if (!list) byLeader.set(s.leader, (list = []));
      list.push(s);
    }
    if (!this.finished()) await Promise.all([...byLeader].map(([leader, parts]) => this.consumeLeader(leader, parts)));
    if (this.endMono === this.startMono || this.counters.timedOut) this.endMono = this.io.now();
    this.detailedStats?.stop();
  }

  async finish(): Promise<ConsumeSummary> {
    const { opts, io, counters: c } = this;
    const elapsedMs = Math.max(1e-3, this.endMono - this.startMono);
    const stats = {
      startMs: this.startWall,
      endMs: this.startWall + elapsedMs,
      bytes: c.bytes,
      records: c.records,
      rebalanceMs: this.rebalanceMs,
    };
    const row = consumerRow(stats);
    if (c.timedOut)
      io.err(
        `WARNING: Exiting before consuming the expected number of messages: timeout (${opts.timeoutMs} ms) exceeded. You can use the --timeout option to increase the timeout.`,
      );
    if (!opts.showDetailedStats) {
      if (!opts.hideHeader) io.out(CONSUMER_HEADER);
      io.out(row);
    }
    await this.commitPositions();
    return this.summary(elapsedMs, row);
  }

  async close(): Promise<void> {
    this.detailedStats?.stop();
    for (const p of this.inflight) p.catch(() => {});
    await this.member?.leave();
    this.client.close();
  }

  /** With --group: the partitions the coordinator assigned and their committed offsets. */
  private async joinGroup(all: number[]): Promise<{ assigned: number[]; committed: Map<number, bigint> }> {
    const { opts } = this;
    let assigned = all;
    if (opts.group === undefined) return { assigned, committed: new Map() };
    try {
      this.member = await GroupMember.join(this.client, opts.group, opts.topic, assigned, opts.clientId);
      assigned = this.member.partitions;
      const committed = await this.member.committed();
      this.mode = 'group';
      return { assigned, committed };
    } catch (err) {
      if (!(err instanceof GroupUnusable)) throw err;
      this.note = `the group coordinator is not usable (${err.message}); reading all partitions by assignment, without group ${opts.group}`;
      this.io.err(`note: ${this.note}`);
      return { assigned, committed: new Map() };
    }
  }

  /** Each partition from its committed offset, else the earliest (--from-latest: the latest); its end without --num-records. */
  private async startPositions(partitions: PartitionMeta[], committed: Map<number, bigint>): Promise<PartitionState[]> {
    const { opts, client } = this;
    const states: PartitionState[] = [];
    for (const p of partitions) {
      const c = committed.get(p.partition);
      const position =
        c !== undefined && c >= 0n
          ? c
          : await client.listOffset(opts.topic, p.partition, p.leader, opts.fromLatest ? -1n : -2n);
      const end =
        opts.numRecords === undefined ? await client.listOffset(opts.topic, p.partition, p.leader, -1n) : undefined;
      states.push({ partition: p.partition, leader: p.leader, position, end });
    }
    return states;
  }

  private startDetailedStats(): void {
    if (!this.opts.showDetailedStats) return;
    if (!this.opts.hideHeader) this.io.out(CONSUMER_DETAILED_HEADER);
    this.detailedStats = new DetailedStatsReporter(this.io, this.counters, this.startMono, this.rebalanceMs);
    this.detailedStats.start(this.opts.reportIntervalMs);
  }

  private finished(): boolean {
    if (this.counters.records >= this.limit) return true;
    return this.opts.numRecords === undefined && this.states.every((s) => s.position >= s.end!);
  }

  /** One leader's Fetch loop: the next Fetch goes out before this response's records are counted. */
  private async consumeLeader(leader: number, parts: PartitionState[]): Promise<void> {
    const conn = await this.client.node(leader);
    const v = conn.version(ApiKey.Fetch, 4, 11);
    const byPartition = new Map(parts.map((s) => [s.partition, s]));
    let pending: Promise<FetchResponse> | undefined = this.fetch(conn, v, parts);
    while (pending) {
      const work = advancePositions(await pending, byPartition, this.opts.topic);
      pending = this.fetchMore(conn, v, parts, work);
      this.count(work);
      if (this.finished()) {
        this.endMono = this.io.now();
        pending = undefined;
      }
    }
  }

  /** The next Fetch, unless the partitions are done, --timeout passed without data or --num-records is reached. */
  private fetchMore(
    conn: KafkaConnection,
    v: number,
    parts: PartitionState[],
    work: FetchedBatches[],
  ): Promise<FetchResponse> | undefined {
    const c = this.counters;
    for (const w of work) for (const b of w.batches) c.wireBytes += b.length;
    const now = this.io.now();
    if (work.length > 0) c.lastDataMono = now;
    if (now - c.lastDataMono > this.opts.timeoutMs) c.timedOut = true;
    if (parts.some(wantsMore) && !c.timedOut && c.records < this.limit) return this.fetch(conn, v, parts);
    return undefined;
  }

  /** Counts the records (key + value bytes), up to --num-records. */
  private count(work: FetchedBatches[]): void {
    const c = this.counters;
    for (const w of work) {
      for (const batch of w.batches) {
        if (c.records >= this.limit) break;
        const scanned = scanBatch(batch, w.from, w.state.end, this.limit - c.records);
        c.records += scanned.records;
        c.bytes += scanned.bytes;
      }
    }
  }

  private fetch(conn: KafkaConnection, v: number, parts: PartitionState[]): Promise<FetchResponse> {
    this.counters.fetches++;
    const p = conn.send<FetchResponse>(ApiKey.Fetch, v, fetchRequest(this.opts.topic, parts, this.opts));
    this.inflight.add(p);
    p.then(
      () => this.inflight.delete(p),
      () => this.inflight.delete(p),
    );
    return p;
  }

  private async commitPositions(): Promise<void> {
    if (!this.member) return;
    const positions = new Map(this.states.map((s) => [s.partition, s.position]));
    const problem = (await this.member.commit(positions)) ?? this.member.heartbeatProblem;
    if (problem) this.io.err(`note: group ${this.opts.group}: ${problem}`);
  }

  private summary(elapsedMs: number, row: string): ConsumeSummary {
    const { records, bytes, wireBytes, fetches, timedOut } = this.counters;
    const fetchMs = Math.max(0, elapsedMs - this.rebalanceMs);
    return {
      tool: 'minnow perf consume',
      startedAt: new Date(this.startWall).toISOString(),
      topic: this.opts.topic,
      group: this.opts.group ?? null,
      mode: this.mode,
      note: this.note,
      partitions: this.states.map((s) => s.partition),
      records,
      bytes,
      wireBytes,
      fetches,
      startMs: this.startWall,
      endMs: this.startWall + elapsedMs,
      elapsedMs,
      rebalanceMs: this.rebalanceMs,
      fetchMs,
      mbPerSec: bytes / MiB / (elapsedMs / 1000),
      recordsPerSec: records / (elapsedMs / 1000),
      fetchMbPerSec: fetchMs > 0 ? bytes / MiB / (fetchMs / 1000) : 0,
      fetchRecordsPerSec: fetchMs > 0 ? records / (fetchMs / 1000) : 0,
      timedOut,
      row,
    };
  }
}
