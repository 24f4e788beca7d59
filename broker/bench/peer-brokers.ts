// The brokers bench:peers measures, behind one interface: minnow as a child process on a fresh
// SQLite file, Apache Kafka as the kafka-oracle's JVM on a fresh log dir. Each is timed from spawn
// to its first Metadata answer, sampled from /proc, and measured with du after a clean stop.
import { mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { probeMetadata } from '../tools/kafka-oracle/kafka';
import { reservePathFor } from '../src/storage/disk-space';
import { diskUsage } from './disk-usage';
import { startKafkaPeer } from './kafka-peer';
import { ProcSample, sample, Sampler } from './proc';
import { BrokerProcess, forgetChild, killOnExit, sleep } from './processes';

/** A broker under test: where to send load, whom to sample, what to du. */
export interface RunningPeer {
  bootstrap: string;
  pid: number;
  sampler: Sampler;
  startupMs: number;
  idleRssBytes: number;
  /** Stops the broker cleanly; then du of its data; then removes it. */
  stopAndMeasure(): Promise<ReturnType<typeof diskUsage>>;
}

export async function startMinnowBroker(tmp: string): Promise<RunningPeer> {
  const dir = mkdtempSync(path.join(tmp, 'minnow-'));
  const t0 = Date.now();
  const dbPath = path.join(dir, 'minnow.db');
  const b = await BrokerProcess.start(`sqlite://${dbPath}`);
  for (let why = await probeMetadata(b.port); why !== null; why = await probeMetadata(b.port)) {
    if (Date.now() - t0 > 60_000) throw new Error(`minnow did not answer Metadata within 60 s: ${why}`);
    await sleep(20);
  }
  const startupMs = Date.now() - t0;
  return {
    bootstrap: b.bootstrap,
    pid: b.pid,
    sampler: b.sampler,
    startupMs,
    idleRssBytes: await idleRss(b.pid),
    async stopAndMeasure() {
      await b.stop();
      const reserveBytes = diskUsage(reservePathFor(dbPath)).allocatedBytes;
      const usage = { ...diskUsage(dir), reserveBytes };
      rmSync(dir, { recursive: true, force: true });
      return usage;
    },
  };
}

export async function startKafkaBroker(heap: string, kafkaVersion: string): Promise<RunningPeer> {
  const { kafka, logDirs } = await startKafkaPeer(heap, kafkaVersion);
  killOnExit(kafka.pid);
  const sampler = new Sampler(kafka.pid, 200);
  return {
    bootstrap: `${kafka.host}:${kafka.port}`,
    pid: kafka.pid,
    sampler,
    startupMs: kafka.startupMs,
    idleRssBytes: await idleRss(kafka.pid),
    async stopAndMeasure() {
      sampler.stop();
      await kafka.stop();
      forgetChild(kafka.pid);
      const usage = diskUsage(logDirs);
      rmSync(kafka.dataDir, { recursive: true, force: true });
      return usage;
    },
  };
}

async function idleRss(pid: number): Promise<number> {
  await sleep(3000);
  return sample(pid)?.rssBytes ?? NaN;
}

/** The sample with the largest VmRSS between two wall times. */
export function peakBetween(s: Sampler, fromMs: number, toMs: number): ProcSample | undefined {
  return s.samples
    .filter((x) => x.atMs >= fromMs && x.atMs <= toMs)
    .reduce<ProcSample | undefined>((a, x) => (!a || x.rssBytes > a.rssBytes ? x : a), undefined);
}
