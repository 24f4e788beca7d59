// The bench's throughput scenarios: maximum produce (1 KiB and 100 B, acks=all) with the
// database size after, consume from the warm database, each codec, and the ceilings beside them
// (raw SQLite, the broker on memory://, the load tool alone).
import * as path from 'node:path';
import { BrokerProcess, log, perf } from './processes';
import { Bootstrap, CONFIGS_100, CONFIGS_1K, maxRateArgs, produceArgs } from './load-args';
import { ceiling, dbBytes } from './floor-probes';
import { jsonLogPayloads } from './json-log-payloads';
import { bestIndex, ClientConfig, MaxRun, Results } from './results';
import { MiB, peakOf } from './scenario-context';
import type { ScenarioContext } from './scenario-context';
import type { ProduceSummary } from '../src/perf/producer';
import type { ConsumeSummary } from '../src/perf/consumer';

// (2) maximum produce throughput, 1 KiB and 100 B, acks=all; database size after.
export async function runMaxProduce(ctx: ScenarioContext): Promise<void> {
  const m1 = await maxRuns(ctx, 1024, CONFIGS_1K, 'max1k');
  ctx.r.max1k = m1.runs;
  ctx.r.db1k = m1.db;
  const m100 = await maxRuns(ctx, 100, CONFIGS_100, 'max100');
  ctx.r.max100 = m100.runs;
  ctx.r.db100 = m100.db;
}

async function maxRuns(
  ctx: ScenarioContext,
  recordSize: number,
  configs: ClientConfig[],
  dbName: string,
): Promise<{ runs: MaxRun[]; db: Results['db1k'] }> {
  const b = await BrokerProcess.start(ctx.sqliteUrl(dbName));
  const runs: MaxRun[] = [];
  for (const [i, c] of configs.entries()) {
    log(`max produce ${recordSize} B: ${c.name}`);
    const run = await perf<ProduceSummary>(
      'produce',
      produceArgs(b.bootstrap, `max-${i}`, recordSize, c, maxRateArgs(ctx.seconds(8))),
    );
    const from = Date.parse(run.summary.startedAt);
    runs.push({
      config: c,
      summary: run.summary,
      brokerCpuPercent: b.sampler.cpuPercent(from, from + run.summary.elapsedMs),
      toolCpuPercent: run.toolCpuPercent,
      machineBusyPercent: run.machineBusyPercent,
    });
  }
  await b.stop();
  ctx.r.peakRss!.push(peakOf(`max produce ${recordSize} B`, b));
  const db = {
    dbBytes: dbBytes(ctx.db(dbName)),
    payloadBytes: runs.reduce((s, x) => s + x.summary.bytes, 0),
    wireBytes: runs.reduce((s, x) => s + x.summary.wireBytes, 0),
  };
  return { runs, db };
}

// (3) consume from the warm 1 KiB database (restarted broker, file in the page cache).
export async function runConsume(ctx: ScenarioContext): Promise<void> {
  const max1k = ctx.r.max1k!;
  const best = bestIndex(max1k);
  const b = await BrokerProcess.start(ctx.sqliteUrl('max1k'));
  ctx.r.consume = [];
  for (const fetchSize of [MiB, 8 * MiB]) {
    log(`consume: topic max-${best} (${max1k[best]!.summary.records} records), fetch size ${fetchSize / MiB} MiB`);
    const run = await perf<ConsumeSummary>('consume', [
      '--bootstrap-server',
      b.bootstrap,
      '--topic',
      `max-${best}`,
      '--fetch-size',
      fetchSize,
      '--timeout',
      '10s',
    ]);
    process.stderr.write(run.stdout);
    const from = Date.parse(run.summary.startedAt);
    const brokerCpuPercent = b.sampler.cpuPercent(from, from + run.summary.elapsedMs);
    ctx.r.consume.push({ fetchSize, summary: run.summary, brokerCpuPercent });
  }
  await b.stop();
  ctx.r.peakRss!.push(peakOf('consume', b));
}

// (4) each codec at 1 KiB, with its generator ceiling.
export async function runCodecs(ctx: ScenarioContext): Promise<void> {
  const c = CONFIGS_1K[1]!;
  const payloadFile = path.join(ctx.tmp, 'json-logs.txt');
  jsonLogPayloads(payloadFile);
  const b = await BrokerProcess.start(ctx.sqliteUrl('codecs'));
  ctx.r.codecs = [];
  const codecArgs = (bootstrap: Bootstrap, codec: string, seconds: number) =>
    produceArgs(bootstrap, `codec-${codec}`, payloadFile, c, [...maxRateArgs(seconds), '--compression', codec]);
  for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
    log(`codec ${codec}`);
    const run = await perf<ProduceSummary>('produce', codecArgs(b.bootstrap, codec, ctx.seconds(6)));
    const noop = await perf<ProduceSummary>('produce', codecArgs(null, codec, ctx.seconds(3)));
    ctx.r.codecs.push({ codec, summary: run.summary, noop: noop.summary });
  }
  await b.stop();
  ctx.r.peakRss!.push(peakOf('codecs', b));
}

// (5) ceilings: raw SQLite with the same blobs, the broker on memory://, the tool in --noop.
export async function runCeilings(ctx: ScenarioContext): Promise<void> {
  for (const runs of [ctx.r.max1k!, ctx.r.max100!]) {
    for (const run of runs) {
      log(`raw SQLite ceiling: ${run.summary.recordSize} B, ${run.config.name}`);
      run.ceiling = ceiling(run.summary.recordSize, run.config.batchSize, run.config.producers, ctx.seconds(6));
    }
  }
  await memoryCeilings(ctx);
  await generatorCeilings(ctx);
}

/** The best client configs of the maximum runs, 1 KiB and 100 B. */
export function bestConfigs(ctx: ScenarioContext): { c1: ClientConfig; c100: ClientConfig } {
  const { max1k, max100 } = ctx.r;
  return { c1: max1k![bestIndex(max1k!)]!.config, c100: max100![bestIndex(max100!)]!.config };
}

async function memoryCeilings(ctx: ScenarioContext): Promise<void> {
  const { c1, c100 } = bestConfigs(ctx);
  log('protocol ceiling: broker on memory://');
  const mem = await BrokerProcess.start('memory://');
  const m1k = await perf<ProduceSummary>(
    'produce',
    produceArgs(mem.bootstrap, 'mem-1k', 1024, c1, maxRateArgs(ctx.seconds(6))),
  );
  const m100 = await perf<ProduceSummary>(
    'produce',
    produceArgs(mem.bootstrap, 'mem-100', 100, c100, maxRateArgs(ctx.seconds(6))),
  );
  ctx.r.memory1k = m1k.summary;
  ctx.r.memory100 = m100.summary;
  ctx.r.memoryBusy = { k1: m1k.machineBusyPercent, b100: m100.machineBusyPercent };
  await mem.stop();
}

async function generatorCeilings(ctx: ScenarioContext): Promise<void> {
  const { c1, c100 } = bestConfigs(ctx);
  log('generator ceiling: --noop');
  const noop = async (size: number, c: ClientConfig) =>
    (await perf<ProduceSummary>('produce', produceArgs(null, 'noop', size, c, maxRateArgs(ctx.seconds(4))))).summary;
  ctx.r.noop1k = await noop(1024, c1);
  ctx.r.noop100 = await noop(100, c100);
}
