// kill -9 crash suite (issue 11, "Proof"): a child-process broker under idempotent produce load and
// group offset commits, SIGKILLed at seeded random moments and restarted on the same file, in both
// SQLITE_SYNCHRONOUS modes. After every restart: the file passes quick_check, every acknowledged
// record is there once at its offset and nothing else is, committed offsets are kept, and the
// idempotent producer resends what was in flight and carries on (see tools/resilience/crash-run.ts).
// MINNOW_CRASH_KILLS (per mode, default 10: 20 kills per run) and MINNOW_CRASH_SEED for longer or
// replayed runs; `npm run crash` runs the same suite outside jest.
import { runCrashSuite } from '../../tools/resilience/crash-run';
import { tempDir } from '../integration/helpers';

const KILLS = Number(process.env.MINNOW_CRASH_KILLS ?? 10);
const SEED = Number(process.env.MINNOW_CRASH_SEED ?? Date.now() % 2 ** 31);

describe('kill -9 under idempotent produce load', () => {
  const tmp = tempDir('minnow-crash-');
  afterAll(() => tmp.cleanup());

  it.each(['normal', 'full'] as const)(
    `keeps every acknowledged record, committed offset and producer state (SQLITE_SYNCHRONOUS=%s, ${KILLS} kills, seed ${SEED})`,
    async (synchronous) => {
      // The seed is in the test name and in every failure message: MINNOW_CRASH_SEED=<seed> replays it.
      const report = await runCrashSuite({
        dir: tmp.dir,
        seed: SEED,
        kills: KILLS,
        synchronous,
        log: process.env.MINNOW_TEST_LOG ? console.log : undefined,
      });
      expect(report.kills).toBe(KILLS);
      // The load really ran and the kills really landed mid-flight, or the test proves nothing.
      expect(report.acknowledgedRecords).toBeGreaterThan(KILLS * 10);
      expect(report.resentBatches).toBeGreaterThan(0);
      expect(report.offsetCommitsAcknowledged).toBeGreaterThan(KILLS);
    },
    60_000 + KILLS * 8_000,
  );
});
