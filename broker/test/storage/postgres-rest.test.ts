// postgres:// against a real PostgreSQL (support/postgres-server.ts): what several brokers on one
// database add to the transactions, compaction and security parts of the storage contract
// (postgres.test.ts runs the contract itself): markers and the last stable offset seen by another
// broker, two brokers ending one transaction, two cleaners on one partition, a broker config
// change seen by another broker; and backup refused.
import { Client } from 'pg';
import { ErrorCode } from '../../src/protocol/error-codes';
import { decodeRecords, encodeRecordBatch, readBatchHeader } from '../../src/protocol/record-batch';
import type { PartitionAppend } from '../../src/storage/storage';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage';
import { StorageError } from '../../src/storage/storage';
import { describeWithTools } from '../support/external-tools';
import { postgresServer } from '../support/postgres-server';
import type { PostgresServer } from '../support/postgres-server';
import { batch, NOW_MS, part } from './fixtures';

jest.setTimeout(60_000);

/** Every table but schema_version, emptied between tests (a database per test would be slow). */
const TRUNCATE = `DO $$ DECLARE r record; BEGIN
  FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_version' LOOP
    EXECUTE format('TRUNCATE %I RESTART IDENTITY CASCADE', r.tablename);
  END LOOP;
  PERFORM setval('producer_id_seq', 1, false);
END $$`;

describeWithTools('postgresql')('postgres:// (pg-rest)', () => {
  let server: PostgresServer;
  let url: string;
  const open: PostgresStorage[] = [];
  const openStorage = async () => {
    const s = await PostgresStorage.open(url, { max: 4 });
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    server = await postgresServer();
    url = await server.createDatabase('pgrest');
    const s = await PostgresStorage.open(url); // migrates
    await s.close();
  });
  afterAll(async () => {
    await server?.stop();
  });

  let s: PostgresStorage;
  beforeEach(async () => {
    s = await openStorage();
    await s.db.query(TRUNCATE);
  });
  afterEach(async () => {
    for (const x of open.splice(0)) await x.close();
  });

  describe('several brokers on one database', () => {
    it('another broker sees the open transaction hold the last stable offset, and its marker move it', async () => {
      const other = await openStorage();
      await s.createTopic('t', 1, {});
      const info = await s.initTransaction('tx', 60000, NOW_MS);
      await s.addToTransaction('tx', [{ topic: 't', partition: 0 }], [], NOW_MS);
      const txBatch = batch({ producerId: info.producerId, producerEpoch: 0, baseSequence: 0, transactional: true });
      expect((await other.append([part('t', 0, [txBatch])], NOW_MS))[0]!.errorCode).toBe(ErrorCode.NONE);
      expect((await other.append([part('t', 0, [batch()])], NOW_MS))[0]!.errorCode).toBe(ErrorCode.NONE);
      expect(await other.lastStableOffset('t', 0)).toBe(0);
      expect((await other.read('t', 0, 0, 1e6, true, true)).batches).toEqual([]);

      const end = await s.endTransaction('tx', false, NOW_MS);
      expect(end.markedPartitions).toEqual([{ topic: 't', partition: 0 }]);
      expect(await other.offsets('t', 0)).toEqual({ logStartOffset: 0, highWatermark: 3 });
      expect(await other.lastStableOffset('t', 0)).toBe(3);
      const read = await other.read('t', 0, 0, 1e6, true, true);
      expect(read.batches).toHaveLength(3);
      expect(read.abortedTransactions).toEqual([{ producerId: info.producerId, firstOffset: 0, lastOffset: 2 }]);
    });

    it('gives each broker its own producer ids and serializes two brokers ending one transaction', async () => {
      const other = await openStorage();
      await s.createTopic('t', 2, {});
      await s.initTransaction('tx', 60000, NOW_MS);
      await s.addToTransaction(
        'tx',
        [0, 1].map((p) => ({ topic: 't', partition: p })),
        [],
        NOW_MS,
      );
      // Both commit at once (a coordinator moving): the advisory lock makes them one after the other.
      const [a, b] = await Promise.all([
        s.endTransaction('tx', true, NOW_MS),
        other.endTransaction('tx', true, NOW_MS),
      ]);
      const marked = [a, b].map((r) => r.markedPartitions.length).sort();
      expect(marked).toEqual([0, 2]);
      expect(await s.offsets('t', 0)).toEqual({ logStartOffset: 0, highWatermark: 1 });
      const ids = await Promise.all([s.initProducerId(null, NOW_MS), other.initProducerId(null, NOW_MS)]);
      expect(new Set(ids.map((i) => i.producerId)).size).toBe(2);
    });

    it('appends on one broker and transactions on another over the same partitions never deadlock', async () => {
      const other = await openStorage();
      await s.createTopic('t', 4, {});
      const all = [0, 1, 2, 3];
      await s.initTransaction('tx', 60000, NOW_MS);
      const appends = async () => {
        for (let i = 0; i < 40; i++) {
          const results = await s.append(
            all.map((p) => part('t', p, [batch()])),
            NOW_MS,
          );
          expect(results.map((r) => r.errorCode)).toEqual([0, 0, 0, 0]);
        }
      };
      const transactions = async () => {
        for (let i = 0; i < 20; i++) {
          // Named in reverse order: the engine still locks in partition id order.
          await other.addToTransaction(
            'tx',
            [...all].reverse().map((p) => ({ topic: 't', partition: p })),
            [],
            NOW_MS,
          );
          await other.endTransaction('tx', i % 2 === 0, NOW_MS);
        }
      };
      await Promise.all([appends(), transactions()]);
      for (const p of all) expect(await s.offsets('t', p)).toEqual({ logStartOffset: 0, highWatermark: 60 });
    });

    it('two brokers cleaning one partition at once leave each key once, its newest value', async () => {
      const other = await openStorage();
      await s.createTopic('c', 1, { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0.01' });
      for (let i = 0; i < 60; i++) await s.append([part('c', 0, [keyed(`k${i % 6}`, `v${i}`)])], NOW_MS);
      await s.append([part('c', 0, [keyed('head', 'h')])], NOW_MS);
      const run = async (x: PostgresStorage) => {
        for (let i = 0; i < 2000; i++) {
          const r = await x.compactStep(NOW_MS, { stepBytes: 200 });
          if (!r.working) return;
        }
        throw new Error('compaction did not go idle');
      };
      await Promise.all([run(s), run(other)]);
      await run(s); // a pass given up as busy is picked up again once the backoff passed
      const seen = new Map<string, string>();
      const { batches } = await other.read('c', 0, 0, 1e9);
      for (const data of batches) for (const r of decodeKeyed(data)) seen.set(r.key, r.value);
      expect(Object.fromEntries(seen)).toEqual({
        k0: 'v54',
        k1: 'v55',
        k2: 'v56',
        k3: 'v57',
        k4: 'v58',
        k5: 'v59',
        head: 'h',
      });
      const keys = batches.flatMap((d) => decodeKeyed(d).map((r) => r.key));
      expect(keys.length).toBe(7);
    });

    it('leaves a partition alone while another broker holds its cleaner lock, and cleans it after', async () => {
      await s.createTopic('c', 1, { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0.01' });
      for (let i = 0; i < 10; i++) await s.append([part('c', 0, [keyed('k', `v${i}`)])], NOW_MS);
      await s.append([part('c', 0, [keyed('head', 'h')])], NOW_MS);
      const id = (await s.db.query<{ id: number }>('SELECT id FROM partition'))[0]!.id;
      const steps = async (nowMs: number) => {
        let passes = 0;
        for (let i = 0; i < 100; i++) {
          const r = await s.compactStep(nowMs);
          if (r.passDone) passes++;
          if (!r.working) return passes;
        }
        throw new Error('compaction did not go idle');
      };
      const holder = new Client({ connectionString: url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT pg_advisory_xact_lock($1, $2)', [0x636c6e, id]); // postgres/cleaner.ts' key
        expect(await steps(NOW_MS)).toBe(0);
        expect((await s.read('c', 0, 0, 1e9)).batches).toHaveLength(11);
        await holder.query('COMMIT');
      } finally {
        await holder.end();
      }
      expect(await steps(NOW_MS + 999)).toBe(0); // left alone for a second
      expect(await steps(NOW_MS + 1000)).toBe(1);
      expect((await s.read('c', 0, 0, 1e9)).batches).toHaveLength(2);
    });

    it('cleans only the partitions the cleans option gives it (a broker: those it leads)', async () => {
      await s.createTopic('c', 2, { 'cleanup.policy': 'compact', 'min.cleanable.dirty.ratio': '0.01' });
      for (const p of [0, 1]) {
        for (let i = 0; i < 5; i++) await s.append([part('c', p, [keyed('k', `v${i}`)])], NOW_MS);
        await s.append([part('c', p, [keyed('head', 'h')])], NOW_MS);
      }
      const cleaned: number[] = [];
      for (let i = 0; i < 100; i++) {
        const r = await s.compactStep(NOW_MS, { cleans: (_topic, partition) => partition === 1 });
        if (r.passDone) cleaned.push(r.passDone.partition);
        if (!r.working) break;
      }
      expect(cleaned).toEqual([1]);
      expect((await s.read('c', 0, 0, 1e9)).batches).toHaveLength(6);
      expect((await s.read('c', 1, 0, 1e9)).batches).toHaveLength(2);
    });

    it('another broker sees a broker config change within a second', async () => {
      const other = await openStorage();
      expect(await other.brokerConfigs('')).toEqual({});
      await s.alterBrokerConfigs('', { 'log.retention.ms': '1000' }, []);
      expect(await s.brokerConfigs('')).toEqual({ 'log.retention.ms': '1000' });
      other.security.invalidate(); // what a NOTIFY on minnow_security does
      expect(await other.brokerConfigs('')).toEqual({ 'log.retention.ms': '1000' });
    });
  });

  it('refuses backup: pg_dump or RDS snapshots are the way', async () => {
    await expect(s.backup('/tmp/x.db')).rejects.toThrow(StorageError);
    await expect(s.backup('/tmp/x.db')).rejects.toThrow(/pg_dump/);
  });
});

function keyed(key: string, value: string): PartitionAppend['batches'][number] {
  const data = encodeRecordBatch({
    records: [{ key: Buffer.from(key), value: Buffer.from(value), timestamp: BigInt(NOW_MS - 60_000) }],
  });
  return { header: readBatchHeader(data), data };
}

function decodeKeyed(data: Buffer): { key: string; value: string }[] {
  return decodeRecords(data).map((r) => ({ key: r.key?.toString() ?? '', value: r.value?.toString() ?? '' }));
}
