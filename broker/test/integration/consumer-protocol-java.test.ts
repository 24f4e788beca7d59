// KIP-848 with the Java client 4.x (group.protocol=consumer): two members split a topic, one
// leaves without the other stopping, a broker-side regex picks up a new topic, commits are
// resumed from. The driver's ConsumerProtocolScenario (broker/test/java) reports what it saw.
import { describeWithTools } from '../support/external-tools';
import { LINES } from './java-driver';
import { scenarioOnFreshBroker } from './java-scenario-suite';

const line = LINES.find((l) => l.module === 'kafka-4')!;

describeWithTools('java', 'mvn')(`KIP-848 consumer groups with the Java client ${line.version}`, () => {
  // A 500 ms heartbeat (Kafka's 5 s is the default): a released partition reaches its next owner sooner.
  const suite = scenarioOnFreshBroker({
    line,
    scenario: 'consumer-protocol',
    prefix: 'k848',
    db: 'kip848.db',
    broker: { config: { groupConsumerHeartbeatIntervalMs: 500, groupConsumerMinHeartbeatIntervalMs: 100 } },
  });

  it('splits a topic between two members, the first giving up only what moves', () => {
    const s = suite.result.split;
    expect(s.aloneA).toHaveLength(4);
    expect(s.sharedA).toHaveLength(2);
    expect(s.sharedB).toHaveLength(2);
    expect([...s.sharedA, ...s.sharedB].sort()).toEqual(s.aloneA);
    expect([...s.revokedAOnJoin].sort()).toEqual(s.sharedB);
    expect(s).toMatchObject({
      describedType: 'Consumer',
      describedState: 'Stable',
      describedMembers: 2,
      describedAssignor: 'uniform',
    });
  });

  it("moves a leaving member's partitions to the other without revoking the other's", () => {
    const s = suite.result.split;
    expect(s.revokedAOnLeave).toEqual([]);
    expect([...s.assignedAOnLeave].sort()).toEqual(s.sharedB);
    expect(s.afterLeaveA).toEqual(s.aloneA);
    // Every record, the ones produced after the leave included, reached the remaining member.
    expect(s.consumedByA).toBe(44);
  });

  it('picks up a topic created after a regex subscription', () => {
    const r = suite.result.regex;
    expect(r.before).toEqual(['k848-re-orders-1']);
    expect(r.after).toEqual(['k848-re-orders-1', 'k848-re-orders-2']);
    expect(r.assignment).toEqual(['k848-re-orders-1-0', 'k848-re-orders-2-0', 'k848-re-orders-2-1']);
  });

  it('resumes from committed offsets in a new consumer of the group', () => {
    const r = suite.result.resume;
    expect(r.firstRead).toBe(44);
    expect(r.committedSum).toBe(44);
    expect([...r.secondRead].sort()).toEqual([
      'after-restart-0-0',
      'after-restart-1-0',
      'after-restart-2-0',
      'after-restart-3-0',
    ]);
  });
});
