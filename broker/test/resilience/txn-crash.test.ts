// Exactly-once through kill -9 (issue 16): a kafkajs consume-transform-produce loop (read A with
// read_committed, write B and the consumed offsets in one transaction) while the broker is
// SIGKILLed at seeded random points mid-stream and restarted on the same SQLite file and port.
// B read with read_committed must hold every value of A exactly once, and a read_committed consumer
// of B running through the kills must deliver every committed record and never an aborted one
// (tools/resilience/txn-crash-run.ts).
// MINNOW_TXN_CRASH_SEED replays a run's kill points (timing aside); MINNOW_TXN_CRASH_KILLS and
// MINNOW_TXN_CRASH_RECORDS make longer runs.
import * as path from 'node:path';
import { runTxnCrash } from '../../tools/resilience/txn-crash-run';
import { tempDir } from '../integration/helpers';
import { freePort } from '../../tools/kafka-oracle/kafka';

const KILLS = Number(process.env.MINNOW_TXN_CRASH_KILLS ?? 5);
const RECORDS = Number(process.env.MINNOW_TXN_CRASH_RECORDS ?? Math.max(2000, KILLS * 250));
const SEED = Number(process.env.MINNOW_TXN_CRASH_SEED ?? Date.now() % 2 ** 31);

describe('transactions through kill -9', () => {
  const tmp = tempDir('minnow-txn-crash-');
  afterAll(() => tmp.cleanup());

  it(
    `a consume-transform-produce loop writes every record exactly once across ${KILLS} kills (seed ${SEED})`,
    async () => {
      const report = await runTxnCrash({
        storageUrl: `sqlite://${path.join(tmp.dir, 'txn-crash.db')}`,
        port: await freePort(),
        seed: SEED,
        kills: KILLS,
        records: RECORDS,
        chunk: 25,
        deadlineMs: 100_000 + KILLS * 3_000,
        log: process.env.MINNOW_TEST_LOG ? console.log : undefined,
      });
      const summary = `seed ${SEED}; ${report.kills} kills, ${report.commits} commits, ${report.abortedRecords} aborted records in B, ${report.liveDelivered} delivered live (${report.liveCatchUp}); incarnations ended: ${report.incarnationEnds.join(' | ')}`;
      // One object, so a failure shows every finding at once with the run's story.
      expect({
        finished: report.finished,
        kills: report.kills,
        missing: `${report.missing.length} missing${report.missing.length ? `: ${report.missing.slice(0, 20).join(', ')}` : ''}`,
        duplicated: report.duplicated,
        unexpected: report.unexpected,
        liveNotCommitted: report.liveNotCommitted,
        // The live reader got every committed record: it never stalled behind a committed one.
        liveDelivered: report.liveDelivered,
        brokerErrors: report.brokerErrors.map((l) => `${l.msg} ${JSON.stringify(l)}`),
        summary,
      }).toEqual({
        finished: true,
        kills: KILLS,
        missing: '0 missing',
        duplicated: {},
        unexpected: [],
        liveNotCommitted: [],
        liveDelivered: RECORDS,
        brokerErrors: [],
        summary,
      });
    },
    // The run's deadline, two final reads (30 s each at most) and the live reader's catch-up (40 s).
    190_000 + KILLS * 3_000,
  );
});
