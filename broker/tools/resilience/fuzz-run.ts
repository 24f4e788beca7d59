// The socket fuzz: hostile and careless frames (fuzz-frames.ts) over many connections to a child-
// process broker, then the checks a client relies on: the broker is alive, answers ApiVersions and
// Metadata, a produce/consume round trip works, its peak RSS stayed under a bound, and it logged no
// 'error' line (malformed input is a warning; an error line means an exception escaped a handler).
// Seeded and reproducible: a failure names the seed and the case, and saves the case's bytes.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { KafkaClient } from '../../src/client/client';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode, errorName } from '../../src/protocol/error-codes';
import { decodeRecords, encodeRecordBatch, splitBatches } from '../../src/protocol/record-batch';
import { ChildBroker, LogLine } from './child-broker';
import { CHUNK, FuzzCase, fuzzGenerator } from './fuzz-frames';

export interface FuzzRunOptions {
  seed: number;
  cases: number;
  /** Folder for the database and for the bytes of a case that broke the broker. */
  dir: string;
  /** Connections open at once. */
  concurrency?: number;
  /** A case whose connection neither closes nor answers within this is given up (ms). */
  caseTimeoutMs?: number;
  /** Health check every this many cases (and at the end). */
  checkEvery?: number;
  /** Peak broker RSS allowed (VmHWM), MiB. */
  rssBoundMiB: number;
  log?: (line: string) => void;
}

export interface FuzzReport {
  cases: number;
  ms: number;
  casesPerSecond: number;
  /** Cases the broker answered, closed, or left waiting (an incomplete frame, acks=0, a long poll). */
  answered: number;
  closedByBroker: number;
  timedOut: number;
  rssStartMiB: number;
  rssPeakMiB: number;
  rssEndMiB: number;
  warnLines: number;
  errorLines: LogLine[];
  /** The slowest cases (time to the broker's answer or close). */
  slowest: { index: number; kind: string; ms: number }[];
  healthChecks: number;
}

export class FuzzFailure extends Error {
  override readonly name = 'FuzzFailure';
}

type Outcome = 'answered' | 'closed' | 'timeout';

/** Writes one case on a fresh connection; resolves when the broker answers, closes, or not in time. */
function sendCase(port: number, bytes: Buffer, timeoutMs: number): Promise<{ outcome: Outcome; ms: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let done = false;
    const finish = (outcome: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ outcome, ms: performance.now() - t0 });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', () => finish('answered'));
    socket.on('error', () => finish('closed'));
    socket.on('close', () => finish('closed'));
  });
}

const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10;

/**
 * What a client relies on after the storm: ApiVersions (the client's negotiation), Metadata naming
 * this broker, and a record produced then fetched back at its offset.
 */
export async function healthCheck(port: number, round: number): Promise<void> {
  const conn = await KafkaConnection.connect('127.0.0.1', port, { clientId: 'fuzz-health', requestTimeoutMs: 10_000 });
  try {
    const versions = await conn.send(ApiKey.ApiVersions, 3, {
      clientSoftwareName: 'fuzz-health',
      clientSoftwareVersion: '1',
    });
    if (versions.errorCode !== ErrorCode.NONE)
      throw new FuzzFailure(`ApiVersions answered ${errorName(versions.errorCode)}`);
    for (const key of [ApiKey.Produce, ApiKey.Fetch, ApiKey.Metadata]) {
      if (!versions.apiKeys.some((k: { apiKey: number }) => k.apiKey === key))
        throw new FuzzFailure(`ApiVersions no longer lists API key ${key}`);
    }
  } finally {
    conn.close();
  }
  const client = new KafkaClient(`127.0.0.1:${port}`, { clientId: 'fuzz-health', requestTimeoutMs: 10_000 });
  try {
    const topic = `fuzz-health-${round}`;
    // Kafka 4 answers the Metadata that auto-creates a topic UNKNOWN_TOPIC_OR_PARTITION; the next one
    // names its partitions (a client asks again, as this does, a bounded number of times).
    let md = await client.metadata([topic], true);
    for (
      let ask = 0;
      ask < 20 && md.topics.find((x) => x.name === topic)?.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      ask++
    ) {
      await new Promise((r) => setTimeout(r, 50));
      md = await client.metadata([topic], true);
    }
    const t = md.topics.find((x) => x.name === topic);
    if (!t || t.errorCode !== ErrorCode.NONE || t.partitions.length === 0)
      throw new FuzzFailure(`Metadata for ${topic}: ${JSON.stringify(t)}`);
    const leader = t.partitions[0]!.leader;
    const value = Buffer.from(`health ${round} ${Date.now()}`);
    const offset = await client.produce(topic, 0, leader, encodeRecordBatch({ records: [{ value }] }), -1, 10_000);
    const f = await client.fetch(topic, 0, leader, offset, { maxWaitMs: 0 });
    if (f.errorCode !== ErrorCode.NONE)
      throw new FuzzFailure(`fetch of ${topic} at ${offset}: ${errorName(f.errorCode)}`);
    const batch = splitBatches(f.records ?? Buffer.alloc(0)).batches[0];
    const got = batch
      ? decodeRecords(batch).find((r) => batch.readBigInt64BE(0) + BigInt(r.offsetDelta) === offset)?.value
      : undefined;
    if (!got || !got.equals(value))
      throw new FuzzFailure(`record produced to ${topic} at ${offset} came back as ${got?.toString() ?? 'nothing'}`);
  } finally {
    client.close();
  }
}

export async function runFuzz(opts: FuzzRunOptions): Promise<FuzzReport> {
  const log = opts.log ?? (() => {});
  const concurrency = opts.concurrency ?? 64;
  const caseTimeoutMs = opts.caseTimeoutMs ?? 300;
  const checkEvery = opts.checkEvery ?? 5_000;
  const broker = await ChildBroker.start({
    storageUrl: `sqlite://${path.join(opts.dir, 'fuzz.db')}`,
    env: { LOG_LEVEL: 'info' },
  });
  const probe = await KafkaConnection.connect('127.0.0.1', broker.port, { clientId: 'fuzz' });
  const supported = new Map<number, { min: number; max: number }>();
  for (const key of (
    await probe.send(ApiKey.ApiVersions, 3, { clientSoftwareName: 'fuzz', clientSoftwareVersion: '1' })
  ).apiKeys)
    supported.set(key.apiKey, { min: key.minVersion, max: key.maxVersion });
  probe.close();
  const generator = fuzzGenerator(opts.seed, supported);
  const rssStart = broker.memoryKiB();
  log(
    `fuzz: seed ${opts.seed}, ${opts.cases} cases, ${concurrency} connections at once; broker pid ${broker.pid} on port ${broker.port}, RSS ${mib(rssStart.rssKiB)} MiB`,
  );

  const report: FuzzReport = {
    cases: 0,
    ms: 0,
    casesPerSecond: 0,
    answered: 0,
    closedByBroker: 0,
    timedOut: 0,
    rssStartMiB: mib(rssStart.rssKiB),
    rssPeakMiB: 0,
    rssEndMiB: 0,
    warnLines: 0,
    errorLines: [],
    slowest: [],
    healthChecks: 0,
  };
  const inFlight = new Map<number, FuzzCase>();
  /** Saves a case's bytes and says how to replay it. */
  const save = (c: FuzzCase) => {
    const file = path.join(opts.dir, `fuzz-seed${opts.seed}-case${c.index}.bin`);
    fs.writeFileSync(file, c.bytes);
    return `case ${c.index} (${c.kind}), bytes saved to ${file}; replay: npm run fuzz -- --seed ${opts.seed} --case ${c.index}`;
  };
  const fail = (msg: string, suspects: FuzzCase[]): never => {
    throw new FuzzFailure(
      `${msg} (seed ${opts.seed}); ${suspects.length ? suspects.map(save).join('; ') : 'no case in flight'}`,
    );
  };
  const recorded = new Map<string, FuzzCase>();

  const t0 = performance.now();
  try {
    let next = 0;
    let chunk: FuzzCase[] = [];
    let chunkNo = -1;
    const take = (): FuzzCase | undefined => {
      if (next >= opts.cases) return undefined;
      const c = Math.floor(next / CHUNK);
      if (c !== chunkNo) {
        chunk = generator.chunk(c);
        chunkNo = c;
      }
      const fc = chunk[next % CHUNK]!;
      next++;
      return fc;
    };
    while (next < opts.cases) {
      const upTo = Math.min(opts.cases, next + checkEvery);
      const worker = async () => {
        for (;;) {
          if (next >= upTo || !broker.alive) return;
          const c = take();
          if (!c) return;
          inFlight.set(c.index, c);
          const r = await sendCase(broker.port, c.bytes, caseTimeoutMs);
          inFlight.delete(c.index);
          report.cases++;
          if (r.outcome === 'answered') report.answered++;
          else if (r.outcome === 'closed') report.closedByBroker++;
          else report.timedOut++;
          if (r.outcome !== 'timeout') {
            report.slowest.push({ index: c.index, kind: c.kind, ms: Math.round(r.ms) });
            if (report.slowest.length > 40) report.slowest = report.slowest.sort((a, b) => b.ms - a.ms).slice(0, 10);
          }
          // Keep the few cases an error line may point back to (the correlation id is the index).
          recorded.set(String(c.index), c);
          if (recorded.size > 4 * concurrency) recorded.delete(recorded.keys().next().value!);
          for (const l of broker.lines.splice(0)) {
            if (l.level === 'warn') report.warnLines++;
            else if (l.level === 'error') {
              report.errorLines.push(l);
              const suspect = recorded.get(String(l.correlationId));
              if (suspect) log(`error line for ${save(suspect)}: ${JSON.stringify(l)}`);
            }
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      if (!broker.alive) {
        const exit = await broker.exited;
        // The culprit is among the cases sent last (their connections closed as the broker died).
        const suspects = new Map(
          [...[...recorded.values()].slice(-2 * concurrency), ...inFlight.values()].map((c) => [c.index, c]),
        );
        fail(
          `the broker died (exit code ${exit.code}, signal ${exit.signal}); last stderr: ${broker.rawLines.slice(-20).join('\n')}`,
          [...suspects.values()],
        );
      }
      const mem = broker.memoryKiB();
      report.rssPeakMiB = mib(mem.hwmKiB);
      try {
        await healthCheck(broker.port, ++report.healthChecks);
      } catch (err) {
        fail(
          `health check after ${report.cases} cases failed: ${(err as Error).message}`,
          [...recorded.values()].slice(-concurrency),
        );
      }
      const secs = (performance.now() - t0) / 1000;
      log(
        `fuzz: ${report.cases}/${opts.cases} cases in ${secs.toFixed(1)} s (${Math.round(report.cases / secs)}/s): ` +
          `${report.answered} answered, ${report.closedByBroker} closed, ${report.timedOut} left waiting; RSS ${mib(mem.rssKiB)} MiB (peak ${mib(mem.hwmKiB)}); ` +
          `${report.warnLines} warn, ${report.errorLines.length} error lines; healthy`,
      );
    }
    report.ms = Math.round(performance.now() - t0);
    report.casesPerSecond = Math.round((report.cases * 1000) / report.ms);
    report.slowest = report.slowest.sort((a, b) => b.ms - a.ms).slice(0, 10);
    const mem = broker.memoryKiB();
    report.rssEndMiB = mib(mem.rssKiB);
    report.rssPeakMiB = mib(mem.hwmKiB);
    if (report.rssPeakMiB > opts.rssBoundMiB)
      fail(`broker peak RSS ${report.rssPeakMiB} MiB exceeds the ${opts.rssBoundMiB} MiB bound`, []);
    return report;
  } finally {
    const exit = await broker.stop();
    if (exit.code !== 0 && exit.signal !== 'SIGKILL') log(`fuzz: broker exited with code ${exit.code} on SIGTERM`);
  }
}
