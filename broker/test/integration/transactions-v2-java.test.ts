// Transaction version 2 (KIP-890 part 2) with the Java client: the broker finalizes
// transaction.version 2, so kafka-clients 4.x drops AddPartitionsToTxn and AddOffsetsToTxn (Produce
// v12 and TxnOffsetCommit v5 add the partitions and the group) and every commit or abort bumps the
// producer epoch; kafka-clients 3.x keeps transaction version 1 on the same broker. Each line runs
// the exactly-once consume-transform-produce scenario (TransactionsV2Scenario.java) on a broker of
// its own, whose request counters (GET /metrics) say which APIs the client sent.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { ScrapedMetrics } from '../support/prometheus-text';
import { describeWithTools } from '../support/external-tools';
import { startTestBroker, tempDir } from './helpers';
import { buildDriver, LINES, runDriverScenario } from './java-driver';

type Line = (typeof LINES)[number];
type Outcome = { scenario: Record<string, any>; requests: (api: string) => number; stderr: string };

const RECORDS = 40; // TransactionsV2Scenario.RECORDS

async function requestCounts(broker: RunningBroker): Promise<(api: string) => number> {
  const r = await fetch(`http://127.0.0.1:${broker.metricsEndpoint!.port}/metrics`);
  const scraped = new ScrapedMetrics(await r.text());
  return (api) => scraped.value('minnow_requests_total', { api }) ?? 0;
}

async function runLine(line: Line, dir: string, transactionVersion = 2): Promise<Outcome> {
  const broker = await startTestBroker(`sqlite://${path.join(dir, `${line.module}-tv${transactionVersion}.db`)}`, {
    config: { metricsListener: { host: '127.0.0.1', port: 0 }, transactionVersion },
  });
  try {
    const r = await runDriverScenario(line, broker.port, line.prefix, 'transactions-v2', 150_000);
    const scenario = r.result ?? { ok: false, error: `exit ${r.code}` };
    return { scenario, requests: await requestCounts(broker), stderr: r.stderr.slice(-4000) };
  } finally {
    await broker.stop();
  }
}

describeWithTools('java', 'mvn')('transaction version 2 with the Java client', () => {
  const tmp = tempDir();
  const outcomes = new Map<Line['module'], Outcome>();
  const KAFKA_4 = LINES.find((l) => l.module === 'kafka-4')!;
  let kafka4AtLevel1: Outcome;

  beforeAll(async () => {
    await buildDriver();
    // The three runs at once: each has a broker (file, port, metrics) of its own, and a run spends
    // most of its time waiting on its JVM's polls and the transactions' round trips.
    const [kafka4AtLevel1Outcome] = await Promise.all([
      runLine(KAFKA_4, tmp.dir, 1),
      ...LINES.map(async (line) => outcomes.set(line.module, await runLine(line, tmp.dir))),
    ]);
    kafka4AtLevel1 = kafka4AtLevel1Outcome;
  }, 420_000);
  afterAll(() => tmp.cleanup());

  function outcome(line: Line, o = outcomes.get(line.module)!): Outcome {
    expect({ ok: o.scenario.ok, error: o.scenario.error, stderr: o.scenario.ok ? '' : o.stderr }).toEqual({
      ok: true,
      error: undefined,
      stderr: '',
    });
    return o;
  }

  describe.each(LINES)('$module ($version)', (line) => {
    it('reads every input exactly once with read_committed; aborted and zombie records only uncommitted', () => {
      const { scenario: s } = outcome(line);
      const expected = Array.from({ length: RECORDS }, (_, i) => `out-v${i}`);
      expect(s.consumed).toBe(RECORDS);
      expect(s.readCommitted).toEqual([...expected, 'successor'].sort());
      const aborted = s.readUncommitted.filter((v: string) => v.startsWith('aborted-'));
      expect(aborted.length).toBeGreaterThan(0);
      expect(s.readUncommitted).toEqual([...expected, ...aborted, 'successor', 'zombie'].sort());
      expect(s.groupOffsets).toEqual({
        [`${line.prefix}-tv2-in-0`]: RECORDS / 2,
        [`${line.prefix}-tv2-in-1`]: RECORDS / 2,
      });
    });

    it('fences the zombie when a new instance initializes the transactional id', () => {
      const { scenario: s } = outcome(line);
      expect(s.zombieCommit).not.toBe('committed');
      expect(s.afterZombie).toMatchObject({ state: 'CompleteCommit', partitions: 0 });
    });

    it('reports the finalized transaction.version 2 (kafka-features describe)', () => {
      const { scenario: s } = outcome(line);
      expect(s.features).toEqual({ 'finalized transaction.version': 2, 'supported transaction.version': '0-2' });
    });
  });

  it('kafka-clients 4.x uses transaction version 2: no AddPartitionsToTxn, an epoch bump per commit and abort', () => {
    const { scenario: s, requests } = outcome(KAFKA_4);
    expect({ addPartitions: requests('AddPartitionsToTxn'), addOffsets: requests('AddOffsetsToTxn') }).toEqual({
      addPartitions: 0,
      addOffsets: 0,
    });
    expect(requests('EndTxn')).toBeGreaterThan(s.transactions);
    // initTransactions, then one more after each of the transactions and the one abort.
    const first = s.epochs[0];
    expect(s.epochs).toEqual(s.epochs.map((_: number, i: number) => first + i));
    expect(s.epochs.length).toBe(s.transactions + 2);
  });

  it('kafka-clients 3.x keeps transaction version 1: AddPartitionsToTxn, one epoch throughout', () => {
    const { scenario: s, requests } = outcome(LINES.find((l) => l.module === 'kafka-3')!);
    expect(requests('AddPartitionsToTxn')).toBeGreaterThanOrEqual(s.transactions);
    expect(requests('AddOffsetsToTxn')).toBeGreaterThanOrEqual(s.transactions);
    expect(new Set(s.epochs)).toEqual(new Set([s.epochs[0]]));
  });

  it('kafka-clients 4.x keeps transaction version 1 on a broker at TRANSACTION_VERSION=1', () => {
    const { scenario: s, requests } = outcome(KAFKA_4, kafka4AtLevel1);
    expect(s.features).toEqual({ 'finalized transaction.version': 1, 'supported transaction.version': '0-2' });
    expect(requests('AddPartitionsToTxn')).toBeGreaterThanOrEqual(s.transactions);
    expect(new Set(s.epochs)).toEqual(new Set([s.epochs[0]]));
    expect(s.readCommitted).toEqual([...Array.from({ length: RECORDS }, (_, i) => `out-v${i}`), 'successor'].sort());
  });
});
