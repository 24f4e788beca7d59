// kill -9 under Kafka 4's groups (issue 32, "Proof"): Java 4.x members of a KIP-848 consumer group
// and of a KIP-932 share group consume while the broker (a child process on SQLite) is SIGKILLed
// at seeded random moments and restarted on the same file and port. Every acknowledged record must
// be consumed (accepted); nothing below an acknowledged commit is consumed again, nothing whose
// acceptance was acknowledged is delivered again; the broker never shows a partition owned by two
// consumer-group members and the assignment settles after the last restart
// (tools/resilience/group-crash-run.ts). MINNOW_GROUP_CRASH_SEED replays a seed,
// MINNOW_GROUP_CRASH_KILLS sets the kills; `npm run crash -- --groups consumer|share` soaks longer.
import { runGroupCrash } from '../../tools/resilience/group-crash-run';
import { describeWithTools } from '../support/external-tools';
import { tempDir } from '../integration/helpers';
import { buildDriver, driverClasspath } from '../integration/java-driver';

const KILLS = Number(process.env.MINNOW_GROUP_CRASH_KILLS ?? 3);
const SEED = Number(process.env.MINNOW_GROUP_CRASH_SEED ?? Date.now() % 2 ** 31);

describeWithTools('java', 'mvn')('kill -9 under Kafka 4 groups (Java 4.x members)', () => {
  const tmp = tempDir('minnow-group-crash-');
  beforeAll(() => buildDriver(), 300_000);
  afterAll(() => tmp.cleanup());

  it.each(['consumer', 'share'] as const)(
    `a %s group keeps its promises across ${KILLS} kills (seed ${SEED})`,
    async (mode) => {
      const report = await runGroupCrash({
        mode,
        dir: tmp.dir,
        seed: SEED,
        kills: KILLS,
        javaClasspath: driverClasspath('kafka-4'),
        log: process.env.MINNOW_TEST_LOG ? console.log : undefined,
      });
      const story = `seed ${SEED}: ${report.story.join('; ')}; counts ${JSON.stringify(report.counts)}; client errors ${report.clientErrors.join(' | ')}`;
      expect({
        kills: report.kills,
        violations: report.violations,
        outstanding: report.outstanding,
        brokerErrors: report.brokerErrors.map((l) => JSON.stringify(l)),
        story,
      }).toEqual({ kills: KILLS, violations: [], outstanding: [], brokerErrors: [], story });
      // The load really ran through the kills, or the test proves nothing.
      expect(report.produced).toBeGreaterThan(KILLS * 20);
      if (process.env.MINNOW_TEST_LOG) console.log(story);
    },
    240_000,
  );
});
