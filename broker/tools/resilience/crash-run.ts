// The kill -9 crash suite: a child-process broker under idempotent produce load (acks=-1, up to 5
// batches in flight per partition, as an idempotent producer may have) and consumer-group offset
// commits, killed with SIGKILL at seeded random moments and restarted on the same file. After every
// restart it checks what a client was promised:
// - the file passes PRAGMA quick_check (read-only, before the broker opens it again);
// - the producer resends its unacknowledged batches with their old sequences and gets each answered
//   without error (a duplicate with the offset it was first written at, KIP-98), then goes on;
// - every partition holds every acknowledged record exactly once at its acknowledged offset, and
//   nothing else: one producer per fresh partition writes sequence n at offset n, so the log must
//   read 0, 1, 2 ... up to the high watermark;
// - the group's committed offsets are those of the last acknowledged commit or of a later one sent;
// - InitProducerId after the restart never hands out a producer id given before.
// The client's load is crash-load.ts, the checks crash-checks.ts.
import fc from 'fast-check';
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode, errorName } from '../../src/protocol/error-codes';
import { ChildBroker } from './child-broker';
import { freshProducerId, logEndOffset, quickCheckFile, verifyCommittedOffsets, verifyLog } from './crash-checks';
import { CrashInvariantError, CrashLoad, TOPIC } from './crash-load';

export { CrashInvariantError } from './crash-load';

export interface CrashRunOptions {
  /** Folder for the database file (one file for the whole run). */
  dir: string;
  seed: number;
  kills: number;
  synchronous: 'normal' | 'full';
  partitions?: number;
  /** Load time before each kill is drawn from this range (ms). */
  killAfterMs?: [number, number];
  log?: (line: string) => void;
}

export interface CrashRunReport {
  kills: number;
  /** Records acknowledged over the run (all of them checked after every restart). */
  acknowledgedRecords: number;
  /** Batches in flight at a kill, resent after the restart. */
  resentBatches: number;
  /** Of those, the ones the broker had already written (answered as duplicates). */
  resentAlreadyWritten: number;
  offsetCommitsAcknowledged: number;
  /** Time from spawn to "listening", ms, per restart. */
  startMs: number[];
}

export async function runCrashSuite(opts: CrashRunOptions): Promise<CrashRunReport> {
  const log = opts.log ?? (() => {});
  const partitions = opts.partitions ?? 3;
  const dbFile = path.join(opts.dir, `crash-${opts.synchronous}.db`);
  const storageUrl = `sqlite://${dbFile}`;
  const env = { SQLITE_SYNCHRONOUS: opts.synchronous, LOG_LEVEL: 'info' };
  const [lo, hi] = opts.killAfterMs ?? [30, 500];
  // Every random choice comes from the seed, so a failing run can be replayed (timing aside).
  const killAfter = fc.sample(fc.integer({ min: lo, max: hi }), { seed: opts.seed, numRuns: opts.kills });
  const batchSizes = fc.sample(fc.integer({ min: 1, max: 40 }), { seed: opts.seed + 1, numRuns: 997 });
  const fail = (msg: string): never => {
    throw new CrashInvariantError(`${msg} (seed ${opts.seed}, SQLITE_SYNCHRONOUS=${opts.synchronous}, file ${dbFile})`);
  };

  const report: CrashRunReport = {
    kills: 0,
    acknowledgedRecords: 0,
    resentBatches: 0,
    resentAlreadyWritten: 0,
    offsetCommitsAcknowledged: 0,
    startMs: [],
  };
  const load = new CrashLoad(partitions, batchSizes, fail);
  const producerIdsSeen = new Set<bigint>();

  const start = async (): Promise<{ broker: ChildBroker; conn: KafkaConnection }> => {
    const t0 = Date.now();
    const broker = await ChildBroker.start({ storageUrl, env }).catch((err: Error) =>
      fail(`the broker did not start after ${report.kills} kills: ${err.message}`),
    );
    report.startMs.push(Date.now() - t0);
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port, {
      clientId: 'crash-suite',
      requestTimeoutMs: 20_000,
    });
    return { broker, conn };
  };

  log(`crash suite: seed ${opts.seed}, ${opts.kills} kills, SQLITE_SYNCHRONOUS=${opts.synchronous}, ${dbFile}`);
  // First start: the topic, the producer id.
  let { broker, conn } = await start();
  try {
    const ct = await conn.send(ApiKey.CreateTopics, conn.version(ApiKey.CreateTopics, 2, 7), {
      topics: [{ name: TOPIC, numPartitions: partitions, replicationFactor: -1, assignments: [], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    if (ct.topics[0].errorCode !== ErrorCode.NONE) fail(`creating ${TOPIC}: ${errorName(ct.topics[0].errorCode)}`);
    ({ producerId: load.producerId, producerEpoch: load.producerEpoch } = await freshProducerId(
      conn,
      producerIdsSeen,
      fail,
    ));

    for (let k = 0; k < opts.kills; k++) {
      const delayMs = killAfter[k]!;
      let timer: NodeJS.Timeout | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => void broker.kill9().then(resolve), delayMs);
      });
      // The load ends by the kill: its requests fail with "connection closed".
      await load.run(conn, killed).catch((err: Error) => {
        if (err instanceof CrashInvariantError) throw err;
      });
      clearTimeout(timer);
      await killed;
      conn.close();
      report.kills++;
      const inFlight = load.producers.reduce((n, p) => n + p.inFlight.length, 0);
      const writtenBefore = report.resentAlreadyWritten;
      const loadErrors = broker.lines.filter((l) => l.level === 'error');
      if (loadErrors.length > 0)
        fail(
          `the broker logged errors under load before kill ${report.kills}: ${loadErrors.map((l) => JSON.stringify(l)).join('; ')}`,
        );
      quickCheckFile(dbFile, fail);

      ({ broker, conn } = await start());
      for (const p of load.producers) {
        // The kill may land before, inside or after the commit of the batches in flight, but a batch
        // is written whole or not at all, and nothing acknowledged is gone.
        const end = await logEndOffset(conn, p.partition, fail);
        const boundaries = [p.acked, ...p.inFlight.map((b) => b.baseSeq + b.count)];
        if (!boundaries.includes(end)) {
          fail(
            `${TOPIC}/${p.partition} ends at offset ${end} after the kill; ${p.acked} records were acknowledged and the batches in flight end at ${boundaries.slice(1).join(', ') || 'none'}`,
          );
        }
        // Resend what was in flight, with its old sequences, as the idempotent producer does.
        const resend = [...p.inFlight];
        report.resentBatches += resend.length;
        report.resentAlreadyWritten += resend.filter((b) => b.baseSeq < end).length;
        await Promise.all(resend.map((b) => load.produce(conn, p, b)));
      }
      await verifyLog(conn, load.producers, fail);
      const errors = broker.lines.filter((l) => l.level === 'error');
      if (errors.length > 0)
        fail(
          `the broker logged errors after restart ${report.kills}: ${errors.map((l) => JSON.stringify(l)).join('; ')}`,
        );
      await verifyCommittedOffsets(conn, load, fail);
      await freshProducerId(conn, producerIdsSeen, fail); // a new producer must get a fresh id; ours keeps its own
      report.acknowledgedRecords = load.producers.reduce((n, p) => n + p.acked, 0);
      log(
        `kill ${k + 1}/${opts.kills} (sync ${opts.synchronous}) after ${delayMs} ms of load: ${inFlight} batches in flight resent (${report.resentAlreadyWritten - writtenBefore} already written), ` +
          `${report.acknowledgedRecords} acknowledged records all present once, committed offsets kept`,
      );
    }
    report.offsetCommitsAcknowledged = load.offsetCommitsAcknowledged;
    return report;
  } finally {
    conn.close();
    await broker.stop();
  }
}
