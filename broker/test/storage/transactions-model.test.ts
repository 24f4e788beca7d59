// Random interleavings of transactions and plain appends, checked against a model and between the
// engines: a read_committed consumer that applies the aborted ranges as Kafka's fetcher does
// (CompletedFetch: an aborted producer's batches are skipped from its range's first offset to its
// ABORT marker) delivers exactly the committed and plain records below the last stable offset, in
// offset order, whatever the fetch sizes; read_committed never returns a batch at or past the LSO;
// SQLite and PostgreSQL answer the same after a reopen in the middle.
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '../../src/protocol/error-codes';
import { Attribute, decodeRecords, readBatchHeader } from '../../src/protocol/record-batch';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import type { AsyncStorage, TransactionInfo } from '../../src/storage/storage';
import { promised } from '../../src/storage/sync-adapter';
import { describeWithTools } from '../support/external-tools';
import { postgresServer } from '../support/postgres-server';
import type { PostgresServer } from '../support/postgres-server';
import { commitWithoutFsync, resetToPristine, takePristineState, type PristineState } from '../support/postgres-reset';
import { batch, NOW_MS, part } from './fixtures';

const dir = mkdtempSync(join(tmpdir(), 'minnow-txn-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const PRODUCERS = 3;
type Op =
  | { kind: 'plain' }
  | { kind: 'begin'; p: number; both: boolean }
  | { kind: 'write'; p: number; records: number }
  | { kind: 'end'; p: number; commit: boolean; bump: boolean }
  | { kind: 'init'; p: number }
  | { kind: 'read'; from: number; maxBytes: number }
  | { kind: 'deleteRecords'; upTo: number }
  | { kind: 'reopen' };

const producer = fc.integer({ min: 0, max: PRODUCERS - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'plain' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('begin' as const), p: producer, both: fc.boolean() }) },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('write' as const), p: producer, records: fc.integer({ min: 1, max: 3 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('end' as const), p: producer, commit: fc.boolean(), bump: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('init' as const), p: producer }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      from: fc.nat(40),
      maxBytes: fc.integer({ min: 1, max: 400 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteRecords' as const), upTo: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
);

interface Entry {
  offset: number;
  /** The transactional id's index, or -1 for a plain batch. */
  p: number;
  status: 'plain' | 'open' | 'committed' | 'aborted';
}

/** Offsets of the records a read_committed consumer delivers, fetching from `from` with `maxBytes` per fetch. */
async function consumeCommitted(
  s: AsyncStorage,
  from: number,
  maxBytes: number,
): Promise<{ offsets: number[]; lso: number }> {
  const offsets: number[] = [];
  let offset = from;
  let lso = -1;
  for (let i = 0; i < 1000; i++) {
    const r = await s.read('t', 0, offset, maxBytes, true, true);
    expect(r.errorCode).toBe(ErrorCode.NONE);
    lso = r.lastStableOffset;
    if (r.batches.length === 0) break;
    const aborted = [...r.abortedTransactions];
    const abortedProducers = new Set<number>();
    for (const b of r.batches) {
      const h = readBatchHeader(b);
      const last = Number(h.baseOffset) + h.lastOffsetDelta;
      expect(last).toBeLessThan(r.lastStableOffset);
      while (aborted.length > 0 && aborted[0]!.firstOffset <= last) abortedProducers.add(aborted.shift()!.producerId);
      const pid = Number(h.producerId);
      if (h.attributes & Attribute.Control) {
        if (decodeRecords(b)[0]!.key!.readInt16BE(2) === 0) abortedProducers.delete(pid);
      } else if (!(h.attributes & Attribute.Transactional) || !abortedProducers.has(pid)) {
        for (const rec of decodeRecords(b)) {
          const at = Number(h.baseOffset) + rec.offsetDelta;
          if (at >= offset) offsets.push(at);
        }
      }
      offset = last + 1;
    }
  }
  return { offsets, lso };
}

async function run(s0: AsyncStorage, ops: readonly Op[], reopen: (s: AsyncStorage) => Promise<AsyncStorage>) {
  let s = s0;
  await s.createTopic('t', 2, {});
  const entries: Entry[] = [];
  const info: (TransactionInfo | undefined)[] = [];
  const seq: number[] = [];
  const ongoing: boolean[] = [];
  const trace: unknown[] = [];
  let hw = [0, 0];
  let logStart = 0;
  const settle = (p: number, commit: boolean) => {
    for (const e of entries) if (e.p === p && e.status === 'open') e.status = commit ? 'committed' : 'aborted';
  };
  const markers = (p: number) => {
    hw = [hw[0]! + 1, hw[1]! + (info[p]!.partitions.length > 1 ? 1 : 0)];
  };
  for (let p = 0; p < PRODUCERS; p++) {
    info[p] = await s.initTransaction(`tx${p}`, 60000, NOW_MS);
    seq[p] = 0;
    ongoing[p] = false;
  }
  for (const o of ops) {
    switch (o.kind) {
      case 'plain': {
        expect((await s.append([part('t', 0, [batch({ records: 1 })])], NOW_MS))[0]).toMatchObject({
          errorCode: 0,
          baseOffset: hw[0],
        });
        entries.push({ offset: hw[0]!, p: -1, status: 'plain' });
        hw[0]!++;
        break;
      }
      case 'begin': {
        const partitions = o.both ? [0, 1] : [0];
        info[o.p] = await s.addToTransaction(
          `tx${o.p}`,
          partitions.map((partition) => ({ topic: 't', partition })),
          [],
          NOW_MS,
        );
        ongoing[o.p] = true;
        break;
      }
      case 'write': {
        const t = info[o.p]!;
        const b = batch({
          producerId: t.producerId,
          producerEpoch: t.producerEpoch,
          baseSequence: seq[o.p]!,
          records: o.records,
          transactional: true,
        });
        const r = (await s.append([part('t', 0, [b])], NOW_MS))[0]!;
        if (!ongoing[o.p]) {
          expect(r.errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
          break;
        }
        expect(r).toMatchObject({ errorCode: 0, baseOffset: hw[0] });
        for (let i = 0; i < o.records; i++) entries.push({ offset: hw[0]! + i, p: o.p, status: 'open' });
        hw[0]! += o.records;
        seq[o.p]! += o.records;
        break;
      }
      case 'end': {
        if (!ongoing[o.p]) break;
        markers(o.p);
        const ended = await s.endTransaction(`tx${o.p}`, o.commit, NOW_MS, o.bump ? 'fence' : 'none');
        settle(o.p, o.commit);
        ongoing[o.p] = false;
        if (o.bump) seq[o.p] = 0; // a new epoch starts its sequences at 0
        info[o.p] = ended.info;
        break;
      }
      case 'init': {
        if (ongoing[o.p]) {
          markers(o.p);
          settle(o.p, false);
        }
        info[o.p] = await s.initTransaction(`tx${o.p}`, 60000, NOW_MS);
        ongoing[o.p] = false;
        seq[o.p] = 0;
        break;
      }
      case 'read': {
        const r = await s.read('t', 0, o.from, o.maxBytes, true, true);
        trace.push(r.errorCode, r.lastStableOffset, r.batches.length, r.abortedTransactions);
        for (const b of r.batches) {
          const h = readBatchHeader(b);
          expect(Number(h.baseOffset) + h.lastOffsetDelta).toBeLessThan(r.lastStableOffset);
        }
        break;
      }
      case 'deleteRecords': {
        const r = await s.deleteRecords('t', 0, o.upTo);
        if (r.errorCode === ErrorCode.NONE) logStart = r.logStartOffset;
        break;
      }
      case 'reopen':
        s = await reopen(s);
        break;
    }
    expect(await s.offsets('t', 0)).toEqual({ logStartOffset: logStart, highWatermark: hw[0] });
    expect((await s.offsets('t', 1))!.highWatermark).toBe(hw[1]);
    const open = entries.filter((e) => e.status === 'open').map((e) => e.offset);
    expect(await s.lastStableOffset('t', 0)).toBe(Math.max(logStart, Math.min(hw[0]!, ...open)));
  }
  const lso = (await s.lastStableOffset('t', 0))!;
  const expected = entries
    .filter((e) => e.offset >= logStart && e.offset < lso && (e.status === 'plain' || e.status === 'committed'))
    .map((e) => e.offset);
  const chunked = await consumeCommitted(s, logStart, 150);
  expect(chunked.offsets).toEqual(expected);
  expect((await consumeCommitted(s, logStart, 1 << 30)).offsets).toEqual(expected);
  return { s, trace, delivered: chunked.offsets, lso, transactions: await s.transactions() };
}

type Run = Awaited<ReturnType<typeof run>>;

/** Both runs answered alike: the same reads, deliveries, last stable offset and stored transactions. */
function expectSame(got: Run, model: Run): void {
  expect(got.trace).toEqual(model.trace);
  expect(got.delivered).toEqual(model.delivered);
  expect(got.lso).toBe(model.lso);
  expect(got.transactions).toEqual(model.transactions);
}

const ops = fc.array(op, { minLength: 1, maxLength: 40 });

// No WAL checkpointer thread (checkpointer.ts, tested on its own and in every broker test): each
// storage started one at its first commit and its close waited for it to boot and exit (~125 ms a
// storage); the WAL is checkpointed inside commits instead, which the model cannot tell apart.
const NO_CHECKPOINTER = { checkpointIntervalMs: 0 };

describe('transactions against a model, on every engine', () => {
  it('deliver exactly the committed and plain records below the LSO, the same on memory and sqlite', async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (o) => {
        const mem = await run(promised(new MemoryStorage()), o, async (s) => s);
        const path = join(dir, `m${++n}.db`);
        const lite = await run(promised(new SqliteStorage(path, NO_CHECKPOINTER)), o, async (s) => {
          await s.close();
          return promised(new SqliteStorage(path, NO_CHECKPOINTER));
        });
        try {
          expectSame(lite, mem);
        } finally {
          await lite.s.close();
        }
      }),
      { numRuns: 50 },
    );
  });

  describeWithTools('postgresql')('postgres', () => {
    let server: PostgresServer;
    let url: string;
    let pristine: PristineState;
    beforeAll(async () => {
      server = await postgresServer();
      url = await server.createDatabase('txn_model');
      await commitWithoutFsync(url); // no test here crashes the server
      await (await PostgresStorage.open(url)).close();
      pristine = await takePristineState(url);
    });
    afterAll(() => server?.stop());

    // Fewer runs: each one puts the database back to its migrated state (postgres-reset.ts).
    it('deliver exactly the committed and plain records below the LSO, the same on memory and postgres', async () => {
      await fc.assert(
        fc.asyncProperty(ops, async (o) => {
          const mem = await run(promised(new MemoryStorage()), o, async (s) => s);
          await resetToPristine(url, pristine);
          let pg: AsyncStorage = await PostgresStorage.open(url);
          try {
            const got = await run(pg, o, async (s) => {
              await s.close();
              return (pg = await PostgresStorage.open(url));
            });
            expectSame(got, mem);
          } finally {
            await pg.close();
          }
        }),
        { numRuns: 15 },
      );
    });
  });
});
