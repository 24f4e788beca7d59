// KIP-848's online upgrade and downgrade with the Java client 4.x: a live group of two classic
// consumers restarted one by one into group.protocol=consumer ones and back, records flowing at
// each step; every record read exactly once (each consumer commits after each poll and on
// revocation). The driver's MigrationScenario (broker/test/java) reports what it saw.
import { describeWithTools } from '../support/external-tools';
import { LINES } from './java-driver';
import { scenarioOnFreshBroker } from './java-scenario-suite';

const line = LINES.find((l) => l.module === 'kafka-4')!;

describeWithTools('java', 'mvn')(
  `online classic <-> consumer group conversion with the Java client ${line.version}`,
  () => {
    const suite = scenarioOnFreshBroker({
      line,
      scenario: 'migration',
      prefix: 'mig',
      db: 'migration.db',
      broker: { config: { groupConsumerHeartbeatIntervalMs: 500, groupConsumerMinHeartbeatIntervalMs: 100 } },
      timeoutMs: 400_000,
    });

    it('converts the live group at each restart, both members consuming throughout', () => {
      const types = ['classic', 'mixedUpgrade', 'consumer', 'mixedDowngrade', 'classicAgain'].map((s) => ({
        step: s,
        type: suite.result[s]?.type,
        members: suite.result[s]?.members,
        owned: suite.result[s]?.owned,
        caughtUp: suite.result[s]?.readSoFar === suite.result[s]?.producedSoFar,
        // Both members read some of the step's records (produced once both owned partitions).
        bothRead: Object.values(suite.result[s]?.readBy ?? {}).every((n) => (n as number) > 0),
      }));
      const expected = (step: string, type: string) => ({
        step,
        type,
        members: 2,
        owned: 4,
        caughtUp: true,
        bothRead: true,
      });
      expect(types).toEqual([
        expected('classic', 'Classic'),
        expected('mixedUpgrade', 'Consumer'),
        expected('consumer', 'Consumer'),
        expected('mixedDowngrade', 'Consumer'),
        expected('classicAgain', 'Classic'),
      ]);
    });

    it('reads every record exactly once across the conversions', () => {
      expect({ readOnce: suite.result.readOnce, readTwice: suite.result.readTwice }).toEqual({
        readOnce: suite.result.produced,
        readTwice: [],
      });
    });
  },
);
