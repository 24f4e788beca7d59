// KIP-932 share groups under a group's own settings with the Java client 4.x's KafkaShareConsumer:
// an acquisition lock ending (the group's share.record.lock.duration.ms) gives the record to the
// other member with delivery count 2, and share.isolation.level=read_committed hides an aborted
// transaction's records (read_uncommitted shows them). The driver's ShareSemanticsScenario
// (broker/test/java) reports what the clients saw.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { startTestBroker, tempDir } from './helpers';
import { buildDriver, LINES, runDriverScenario } from './java-driver';

const line = LINES.find((l) => l.module === 'kafka-4')!;

describeWithTools('java', 'mvn')(`KIP-932 share-group settings with the Java client ${line.version}`, () => {
  let broker: RunningBroker;
  const tmp = tempDir();
  let result: Record<string, any> = {};
  let failure = '';

  beforeAll(async () => {
    // A 2 s lock is below Kafka's 15 s minimum: lower the minimum (group.share.min.record.lock.duration.ms).
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'kip932-settings.db')}`, {
      config: { groupShareMinRecordLockDurationMs: 1000 },
    });
    await buildDriver();
    const r = await runDriverScenario(line, broker.port, 'k932s', 'share-semantics', 240_000);
    result = r.result ?? {};
    failure = `exit ${r.code}; ${result.error ?? ''}\nstderr:\n${r.stderr.slice(-3000)}`;
  }, 300_000);
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it('runs the scenario to the end', () => {
    expect({ ok: result.ok, failure: result.ok ? '' : failure }).toEqual({ ok: true, failure: '' });
  });

  it('gives a record whose lock ended to the other member, with delivery count 2', () => {
    expect(result.lockExpiry).toEqual({ byA: ['job#1'], byB: ['job#2'] });
  });

  it('hides the records of an aborted transaction from a read_committed share group only', () => {
    expect(result.isolation).toEqual({
      read_committed: ['c1', 'c2'],
      read_uncommitted: ['c1', 'a1', 'a2', 'c2'],
    });
  });
});
