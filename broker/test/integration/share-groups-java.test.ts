// KIP-932 share groups with the Java client 4.x's KafkaShareConsumer: two members share one
// partition's records, a released record comes back, a rejected one and one over the delivery limit
// are archived. The driver's ShareScenario (broker/test/java) reports what the client saw.
import { describeWithTools } from '../support/external-tools';
import { LINES } from './java-driver';
import { scenarioOnFreshBroker } from './java-scenario-suite';

const line = LINES.find((l) => l.module === 'kafka-4')!;

describeWithTools('java', 'mvn')(`KIP-932 share groups with the Java client ${line.version}`, () => {
  const suite = scenarioOnFreshBroker({ line, scenario: 'share', prefix: 'k932', db: 'kip932.db' });

  it("shares one partition's records between two members, each record delivered once", () => {
    const s = suite.result.shared;
    expect(s).toMatchObject({ produced: 40, distinct: 40, deliveries: 40 });
    expect(s.byA + s.byB).toBe(40);
    expect({ aGotSome: s.byA > 0, bGotSome: s.byB > 0 }).toEqual({ aGotSome: true, bGotSome: true });
  });

  it('delivers a released record again with a higher delivery count, and never after it is accepted', () => {
    expect(suite.result.release).toEqual({ seen: ['job-1#1', 'job-1#2'], afterAccept: [] });
  });

  it('archives a rejected record at once and a record released at every delivery after 5 deliveries', () => {
    const seen: string[] = suite.result.limit.seen;
    expect(seen.filter((s) => s.startsWith('rejected'))).toEqual(['rejected#1']);
    expect(seen.filter((s) => s.startsWith('poison'))).toEqual([
      'poison#1',
      'poison#2',
      'poison#3',
      'poison#4',
      'poison#5',
    ]);
  });
});
