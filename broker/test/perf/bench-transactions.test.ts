// bench/transactions.ts's pure parts: the perf arguments of each scenario parse as meant, and the
// BENCHMARKS.md block is rendered and replaced between its markers. No timing is asserted.
import {
  BEGIN_MARK,
  END_MARK,
  medianRun,
  produceArgs,
  render,
  replaceBlock,
  Results,
  Run,
  SCENARIOS,
  SHAPES,
} from '../../bench/transactions';
import { parseProduceArgs, ProduceOptions } from '../../src/perf/options';

const parsed = (args: string[]) => parseProduceArgs(args, {}) as ProduceOptions;

describe('bench:transactions', () => {
  it('offers the same load in every scenario; only the transaction settings differ', () => {
    const opts = SCENARIOS.map((s) => parsed(produceArgs('127.0.0.1:1', 't', 5, 10, s)));
    for (const o of opts)
      expect(o).toMatchObject({
        bootstrap: '127.0.0.1:1',
        recordSize: 1024,
        batchSizeBytes: 16384,
        producers: 5,
        acks: -1,
        throughput: -1,
        durationMs: 10_000,
        idempotent: true,
      });
    expect(opts.map((o) => [o.transactionalId, o.transactionalId === undefined ? null : o.transactionBatches])).toEqual(
      [
        [undefined, null],
        ['bench-txn', 1],
        ['bench-txn', 10],
        ['bench-txn', 100],
      ],
    );
  });

  const run = (shape: (typeof SHAPES)[number], i: number, recordsPerSec: number): Run => ({
    shape: shape.label,
    producers: shape.producers,
    scenario: SCENARIOS[i]!,
    args: produceArgs('127.0.0.1:4242', `txn-bench-${i}`, shape.producers, 10, SCENARIOS[i]!),
    summary: {
      records: 1,
      recordsPerSec,
      mbPerSec: recordsPerSec / 1024,
      latency: { count: 1, avgMs: 1, maxMs: 2, minMs: 0.5, p50Ms: 1, p95Ms: 1.5, p99Ms: 2, p999Ms: 2 } as never,
      commitLatency:
        SCENARIOS[i]!.batchesPerTransaction === null
          ? null
          : ({ count: 1, avgMs: 5, maxMs: 9, minMs: 1, p50Ms: 5, p95Ms: 7, p99Ms: 8, p999Ms: 9 } as never),
      errors: 0,
      firstError: null,
      transactions:
        SCENARIOS[i]!.batchesPerTransaction === null
          ? null
          : {
              transactionalId: 'bench-txn',
              batchesPerTransaction: SCENARIOS[i]!.batchesPerTransaction!,
              committed: 7,
              aborted: 0,
            },
      elapsedMs: 10_000,
    },
  });
  const results: Results = {
    date: '2026-12-04',
    commit: 'abc1234',
    machine: 'a machine',
    loadBefore: '1',
    loadAfter: '2',
    durationS: 10,
    totalS: 100,
    runs: SHAPES.flatMap((shape) => [run(shape, 0, 1000), run(shape, 1, 250), run(shape, 2, 500), run(shape, 3, 900)]),
  };

  it('renders one row per run with its ratio to the idempotent run of its shape, and the commands', () => {
    const md = render(results);
    expect(md).toContain(
      '| 1 producer | idempotent, not transactional | 1,000 | 1.0 | 1.00 / 2.00 | 1.00 / 2.00 | - | 100 % |',
    );
    expect(md).toContain(
      '| 5 producers | transactional, 1 batch per transaction | 250 | 0.2 | 1.00 / 2.00 | 5.00 / 8.00 | 7 | 25 % |',
    );
    expect(md).toContain(
      '| 5 producers | transactional, 100 batches per transaction | 900 | 0.9 | 1.00 / 2.00 | 5.00 / 8.00 | 7 | 90 % |',
    );
    expect(md).toContain(
      'minnow perf produce --bootstrap-server 127.0.0.1:PORT --topic TOPIC --record-size 1024 --batch-size 16384 --producers 1',
    );
    expect(md).not.toContain('4242');
  });

  it('keeps the median round of a scenario, with the figure of every round', () => {
    const rounds = [900, 300, 600].map((rps) => run(SHAPES[0]!, 1, rps));
    const m = medianRun(rounds);
    expect(m.summary.recordsPerSec).toBe(600);
    expect(m.rounds).toEqual([900, 300, 600]);
    const md = render({ ...results, rounds: 3, runs: [run(SHAPES[0]!, 0, 1000), m] });
    expect(md).toContain('| 1 producer | transactional, 1 batch per transaction | 600 (900, 300, 600) |');
    expect(md).toContain('Every scenario ran 3 times');
    expect(md).toContain(
      'with 1 producer, transactions of 1, 10 and 100 batches keep 60 % of the idempotent throughput',
    );
  });

  it('replaces the block between the markers, or appends it', () => {
    const doc = `# B\n\nbefore\n${BEGIN_MARK}\nold\n${END_MARK}\nafter\n`;
    expect(replaceBlock(doc, 'new')).toBe(`# B\n\nbefore\n${BEGIN_MARK}\nnew\n${END_MARK}\nafter\n`);
    expect(replaceBlock('# B\n', 'new')).toBe(`# B\n\n${BEGIN_MARK}\nnew\n${END_MARK}\n`);
  });
});
