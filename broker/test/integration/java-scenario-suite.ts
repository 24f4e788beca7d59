// One Java driver scenario against a fresh SQLite broker, for a describe block whose tests read
// what the scenario reported: the broker starts, the driver runs the scenario once, and the
// broker stops after the block. The first test checks that the scenario ran to its end.
import * as path from 'node:path';
import type { startBroker, RunningBroker } from '../../src/server/broker';
import { startTestBroker, tempDir } from './helpers';
import { buildDriver, LINES, runDriverScenario } from './java-driver';

export interface ScenarioSuite {
  /** What the scenario reported (read in tests: filled in beforeAll). */
  readonly result: Record<string, any>;
}

export function scenarioOnFreshBroker(opts: {
  line: (typeof LINES)[number];
  /** The driver's scenario name and the prefix of the names it creates. */
  scenario: string;
  prefix: string;
  /** The database file's name in a temp dir. */
  db: string;
  broker?: Parameters<typeof startBroker>[0];
  timeoutMs?: number;
}): ScenarioSuite {
  const timeoutMs = opts.timeoutMs ?? 240_000;
  const tmp = tempDir();
  const suite = { result: {} as Record<string, any> };
  let broker: RunningBroker | undefined;
  let failure = '';
  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, opts.db)}`, opts.broker);
    await buildDriver();
    const r = await runDriverScenario(opts.line, broker.port, opts.prefix, opts.scenario, timeoutMs);
    suite.result = r.result ?? {};
    failure = `exit ${r.code}; ${suite.result.error ?? ''}\nstderr:\n${r.stderr.slice(-3000)}`;
  }, timeoutMs + 60_000);
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });
  it('runs the scenario to the end', () => {
    const { ok } = suite.result;
    expect({ ok, failure: ok ? '' : failure }).toEqual({ ok: true, failure: '' });
  });
  return suite;
}
