// KIP-932 share groups with the Java client 4.x's KafkaShareConsumer: two members share one
// partition's records, a released record comes back, a rejected one and one over the delivery limit
// are archived. The driver's ShareScenario (broker/test/java) reports what the client saw.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { startTestBroker, tempDir } from './helpers';
import { buildDriver, LINES, runDriverScenario } from './java-driver';

const line = LINES.find((l) => l.module === 'kafka-4')!;

describeWithTools('java', 'mvn')(`KIP-932 share groups with the Java client ${line.version}`, () => {
  let broker: RunningBroker;
  const tmp = tempDir();
  let result: Record<string, any> = {};
  let failure = '';

  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'kip932.db')}`);
    await buildDriver();
    const r = await runDriverScenario(line, broker.port, 'k932', 'share', 240_000);
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

  it("shares one partition's records between two members, each record delivered once", () => {
    const s = result.shared;
    expect(s).toMatchObject({ produced: 40, distinct: 40, deliveries: 40 });
    expect(s.byA + s.byB).toBe(40);
    expect({ aGotSome: s.byA > 0, bGotSome: s.byB > 0 }).toEqual({ aGotSome: true, bGotSome: true });
  });

  it('delivers a released record again with a higher delivery count, and never after it is accepted', () => {
    expect(result.release).toEqual({ seen: ['job-1#1', 'job-1#2'], afterAccept: [] });
  });

  it('archives a rejected record at once and a record released at every delivery after 5 deliveries', () => {
    const seen: string[] = result.limit.seen;
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
