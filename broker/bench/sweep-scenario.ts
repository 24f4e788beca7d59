// The bench's latency sweep: produce latency percentiles against offered load (Kafka's default
// client settings), drawn as bench/latency-vs-load.svg.
import { fmtRate } from './plot';
import { BrokerProcess, log, perf } from './processes';
import { pacedArgs } from './load-args';
import type { Results } from './results';
import { peakOf } from './scenario-context';
import type { ScenarioContext } from './scenario-context';
import type { ProduceSummary } from '../src/perf/producer';

// Latency percentiles against offered load (Kafka's default client settings).
export async function runSweep(ctx: ScenarioContext): Promise<void> {
  const b = await BrokerProcess.start(ctx.sqliteUrl('sweep'));
  ctx.r.sweep = [];
  // Unrecorded: the first step would otherwise pay for compiling the broker's hot paths.
  await perf<ProduceSummary>('produce', pacedArgs(b.bootstrap, 'sweep-warmup', { durationS: ctx.seconds(3) }, 5000));
  for (const rate of [1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000])
    ctx.r.sweep.push(await sweepPoint(ctx, b, rate));
  await b.stop();
  ctx.r.peakRss!.push(peakOf('latency sweep', b));
}

async function sweepPoint(ctx: ScenarioContext, b: BrokerProcess, rate: number): Promise<Results['sweep'][number]> {
  log(`sweep: ${fmtRate(rate)} records/s`);
  const args = pacedArgs(b.bootstrap, `sweep-${rate}`, { durationS: ctx.seconds(6) }, rate, '1h', [
    '--warmup-records',
    rate,
  ]);
  const run = await perf<ProduceSummary>('produce', args);
  const s = run.summary;
  const from = Date.parse(s.startedAt);
  return {
    offered: rate,
    achieved: s.recordsPerSec,
    p50Ms: s.latency.p50Ms,
    p95Ms: s.latency.p95Ms,
    p99Ms: s.latency.p99Ms,
    p999Ms: s.latency.p999Ms,
    abandoned: s.abandoned,
    cpuPercent: b.sampler.cpuPercent(from + 1000, run.toMs - 300),
  };
}
