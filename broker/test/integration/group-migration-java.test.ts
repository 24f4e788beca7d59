// KIP-848's online upgrade and downgrade with the Java client 4.x: a live group of two classic
// consumers restarted one by one into group.protocol=consumer ones and back, records flowing at
// each step; every record read exactly once (each consumer commits after each poll and on
// revocation). The driver's MigrationScenario (broker/test/java) reports what it saw.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { startTestBroker, tempDir } from './helpers';
import { buildDriver, LINES, runDriverScenario } from './java-driver';

const line = LINES.find((l) => l.module === 'kafka-4')!;

describeWithTools('java', 'mvn')(
  `online classic <-> consumer group conversion with the Java client ${line.version}`,
  () => {
    let broker: RunningBroker;
    const tmp = tempDir();
    let result: Record<string, any> = {};
    let failure = '';

    beforeAll(async () => {
      broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'migration.db')}`, {
        config: { groupConsumerHeartbeatIntervalMs: 500, groupConsumerMinHeartbeatIntervalMs: 100 },
      });
      await buildDriver();
      const r = await runDriverScenario(line, broker.port, 'mig', 'migration', 400_000);
      result = r.result ?? {};
      failure = `exit ${r.code}; ${result.error ?? ''}\nstderr:\n${r.stderr.slice(-3000)}`;
    }, 480_000);
    afterAll(async () => {
      await broker?.stop();
      tmp.cleanup();
    });

    it('runs the scenario to the end', () => {
      expect({ ok: result.ok, failure: result.ok ? '' : failure }).toEqual({ ok: true, failure: '' });
    });

    it('converts the live group at each restart, both members consuming throughout', () => {
      const types = ['classic', 'mixedUpgrade', 'consumer', 'mixedDowngrade', 'classicAgain'].map((s) => ({
        step: s,
        type: result[s]?.type,
        members: result[s]?.members,
        owned: result[s]?.owned,
        caughtUp: result[s]?.readSoFar === result[s]?.producedSoFar,
        // Both members read some of the step's records (produced once both owned partitions).
        bothRead: Object.values(result[s]?.readBy ?? {}).every((n) => (n as number) > 0),
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
      expect({ readOnce: result.readOnce, readTwice: result.readTwice }).toEqual({
        readOnce: result.produced,
        readTwice: [],
      });
    });
  },
);
