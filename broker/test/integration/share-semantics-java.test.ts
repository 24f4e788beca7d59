// KIP-932 share groups under a group's own settings with the Java client 4.x's KafkaShareConsumer:
// an acquisition lock ending (the group's share.record.lock.duration.ms) gives the record to the
// other member with delivery count 2, and share.isolation.level=read_committed hides an aborted
// transaction's records (read_uncommitted shows them). The driver's ShareSemanticsScenario
// (broker/test/java) reports what the clients saw.
import { describeWithTools } from '../support/external-tools';
import { LINES } from './java-driver';
import { scenarioOnFreshBroker } from './java-scenario-suite';

const line = LINES.find((l) => l.module === 'kafka-4')!;

describeWithTools('java', 'mvn')(`KIP-932 share-group settings with the Java client ${line.version}`, () => {
  // A 2 s lock is below Kafka's 15 s minimum: lower the minimum (group.share.min.record.lock.duration.ms).
  const suite = scenarioOnFreshBroker({
    line,
    scenario: 'share-semantics',
    prefix: 'k932s',
    db: 'kip932-settings.db',
    broker: { config: { groupShareMinRecordLockDurationMs: 1000 } },
  });

  it('gives a record whose lock ended to the other member, with delivery count 2', () => {
    expect(suite.result.lockExpiry).toEqual({ byA: ['job#1'], byB: ['job#2'] });
  });

  it('hides the records of an aborted transaction from a read_committed share group only', () => {
    expect(suite.result.isolation).toEqual({
      read_committed: ['c1', 'c2'],
      read_uncommitted: ['c1', 'a1', 'a2', 'c2'],
    });
  });
});
