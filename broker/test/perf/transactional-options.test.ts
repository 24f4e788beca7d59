// `minnow perf produce --transactional-id ID --transaction-batches N`: parsing, and the ids the
// producers take.
import { UsageError } from '../../src/args';
import { DEFAULT_TRANSACTION_BATCHES, parseProduceArgs, ProduceOptions } from '../../src/perf/options';
import { transactionalIdOf } from '../../src/perf/producer-fleet';

const produce = (...args: string[]) => parseProduceArgs(args, {}) as ProduceOptions;
const base = ['--topic', 't', '--num-records', '100', '--record-size', '10'];

describe('perf produce transactional options', () => {
  it('is not transactional by default', () => {
    expect(produce(...base)).toMatchObject({ transactionalId: undefined, idempotent: false });
  });

  it('makes a transactional producer idempotent, with one batch per transaction by default', () => {
    expect(produce(...base, '--transactional-id', 'x')).toMatchObject({
      transactionalId: 'x',
      transactionBatches: DEFAULT_TRANSACTION_BATCHES,
      idempotent: true,
      acks: -1,
      transactionTimeoutMs: 60_000,
    });
    expect(DEFAULT_TRANSACTION_BATCHES).toBe(1);
  });

  it('reads --transaction-batches', () => {
    expect(produce(...base, '--transactional-id', 'x', '--transaction-batches', '100').transactionBatches).toBe(100);
  });

  it('takes transactional.id and transaction.timeout.ms from --producer-props; the flag wins', () => {
    const o = produce(...base, '--producer-props', 'transactional.id=p', 'transaction.timeout.ms=5000');
    expect(o).toMatchObject({ transactionalId: 'p', transactionTimeoutMs: 5000, idempotent: true, ignoredProps: [] });
    expect(produce(...base, '--producer-props', 'transactional.id=p', '--transactional-id', 'f').transactionalId).toBe(
      'f',
    );
  });

  it('rejects --transaction-batches without --transactional-id', () => {
    expect(() => produce(...base, '--transaction-batches', '10')).toThrow(UsageError);
    expect(() => produce(...base, '--transaction-batches', '10')).toThrow(/needs --transactional-id/);
  });

  it.each(['0', '-3', 'x', '1.5'])('rejects --transaction-batches %s', (n) => {
    expect(() => produce(...base, '--transactional-id', 'x', `--transaction-batches=${n}`)).toThrow(
      /--transaction-batches .*expected an integer >= 1/,
    );
  });

  it('rejects acks other than all, a disabled idempotence and an empty id', () => {
    expect(() => produce(...base, '--transactional-id', 'x', '--acks', '1')).toThrow(
      /--transactional-id needs --acks all/,
    );
    expect(() => produce(...base, '--transactional-id', 'x', '--producer-props', 'enable.idempotence=false')).toThrow(
      /needs an idempotent producer/,
    );
    expect(() => produce(...base, '--transactional-id=')).toThrow(/non-empty/);
  });

  it('names one producer ID and several ID-0, ID-1, ...', () => {
    expect(transactionalIdOf('x', 0, 1)).toBe('x');
    expect([0, 1, 2].map((i) => transactionalIdOf('x', i, 3))).toEqual(['x-0', 'x-1', 'x-2']);
  });
});
