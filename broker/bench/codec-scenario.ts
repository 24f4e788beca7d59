// bench:peers' compressed-produce scenario (issue 33, goal 4): on one fresh broker per column, each
// codec in turn at the tools' maximum rate, acks=all, 1 KiB JSON log lines (json-log-payloads.ts:
// records that compress as real ones do). kafka-producer-perf-test reads them with --payload-file
// (it takes that or --record-size, not both); `minnow perf produce` with the same file. Each run on
// its own topic; the broker's CPU over each tool's load window. Rows: codec-report.ts.
import * as path from 'node:path';
import { CodecRun, MINNOW_CODEC_CLIENT } from './codec-report';
import { maxRateArgs, produceArgs } from './load-args';
import { peakBetween, RunningPeer } from './peer-brokers';
import { fromProduceSummary, kafkaProducerPerf } from './peer-scenarios';
import type { PeerId, PeerScenarioResult, ToolFigures } from './peers-report';
import { log, perf } from './processes';
import { jsonLogPayloads } from './json-log-payloads';
import type { ProduceSummary } from '../src/perf/producer';

const RECORD_BYTES = 1024;

/** Writes the payload file (512 distinct 1 KiB lines) into `dir`; returns its path. */
export function codecPayloadFile(dir: string): string {
  const file = path.join(dir, 'json-log-1k.txt');
  jsonLogPayloads(file, 512, RECORD_BYTES);
  return file;
}

async function minnowCodecRun(peer: RunningPeer, run: CodecRun, payloadFile: string): Promise<ToolFigures> {
  log(`  minnow perf produce: ${run.minnowSeconds} s of ${run.codec} (${MINNOW_CODEC_CLIENT.name})`);
  const args = produceArgs(peer.bootstrap, `codec-${run.codec}-mperf`, payloadFile, MINNOW_CODEC_CLIENT, [
    ...maxRateArgs(run.minnowSeconds),
    '--compression',
    run.codec,
  ]);
  const r = await perf<ProduceSummary>('produce', args);
  const s = r.summary;
  return {
    // A --duration run asks for no count: what it could not send is its errors and abandoned records.
    ...fromProduceSummary(r, peer, false, s.records + s.errors + s.abandoned),
    codec: run.codec,
    wirePerRecordByte: s.bytes > 0 ? s.wireBytes / s.bytes : NaN,
  };
}

/** `runs` (codecPlan's) on one fresh broker: each codec's two tool runs. */
export async function codecScenario(
  peer: RunningPeer,
  kafkaVersion: string,
  id: PeerId,
  plan: CodecRun[],
  payloadFile: string,
): Promise<PeerScenarioResult> {
  const from = Date.now();
  const runs: ToolFigures[] = [];
  for (const run of plan) {
    const kpt = await kafkaProducerPerf(
      peer,
      kafkaVersion,
      `codec-${run.codec}-kpt`,
      run.kptRecords,
      RECORD_BYTES,
      -1,
      { payloadFile, producerProps: [`compression.type=${run.codec}`] },
    );
    runs.push({ ...kpt, codec: run.codec });
    runs.push(await minnowCodecRun(peer, run, payloadFile));
    for (const t of runs.slice(-2))
      log(
        `  ${run.codec}, ${t.tool}: ${t.mbPerSec.toFixed(1)} MB/s of records, broker ${t.brokerCpuPercent.toFixed(0)} % of a core`,
      );
  }
  const peak = peakBetween(peer.sampler, from, Date.now());
  return {
    peer: id,
    runs,
    startupMs: peer.startupMs,
    idleRssBytes: peer.idleRssBytes,
    peakRssBytes: peak?.rssBytes ?? NaN,
    peakAnonBytes: peak?.anonBytes ?? NaN,
  };
}

/** One broker's results of several sessions (a fresh broker per codec) as one column. */
export function mergeCodecResults(parts: PeerScenarioResult[]): PeerScenarioResult {
  const max = (xs: number[]) => Math.max(...xs.filter(Number.isFinite));
  return {
    ...parts[0]!,
    runs: parts.flatMap((p) => p.runs),
    startupMs: max(parts.map((p) => p.startupMs)),
    idleRssBytes: max(parts.map((p) => p.idleRssBytes)),
    peakRssBytes: max(parts.map((p) => p.peakRssBytes)),
    peakAnonBytes: max(parts.map((p) => p.peakAnonBytes ?? NaN)),
  };
}
