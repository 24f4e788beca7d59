// `minnow migrate` (storage/migrate/): a sqlite:// state with something in every table is copied
// into an empty PostgreSQL database row for row, verified, and refused when it should be: a
// non-empty target, a source a broker holds. One flipped byte in the target fails the verify.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { migrateCommand } from '../../src/cli/migrate';
import { credentialFromPassword } from '../../src/sasl/scram-crypto';
import { migrateSqliteToPostgres, verifyMigration } from '../../src/storage/migrate/migrate';
import { COPIED_TABLES } from '../../src/storage/migrate/tables';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import type { AsyncStorage } from '../../src/storage/storage';
import { promised } from '../../src/storage/sync-adapter';
import { describeWithTools } from '../support/external-tools';
import { postgresServer } from '../support/postgres-server';
import type { PostgresServer } from '../support/postgres-server';
import { batch, NOW_MS, part, resend } from './fixtures';

const dir = mkdtempSync(join(tmpdir(), 'minnow-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The idempotent producer's batch buildSource appended (to send again after the migration). */
let idempotent: ReturnType<typeof batch>;

/** A sqlite:// database with rows in every table the migration copies. */
async function buildSource(path: string): Promise<void> {
  const s = new SqliteStorage(path);
  try {
    s.identity({ clusterId: 'MkU3OEVBNTcwNTJENDM2Qg', nodeId: 3 });
    s.createTopic('orders', 3, { 'retention.ms': '86400000' });
    s.createTopic('state', 1, { 'cleanup.policy': 'compact' });
    for (let i = 0; i < 30; i++) {
      s.append([part('orders', i % 3, [batch({ records: 1 + (i % 4), valueBytes: 100 + i })])], NOW_MS);
    }
    s.deleteRecords('orders', 0, 2);
    const { producerId } = s.initProducerId(null, NOW_MS);
    idempotent = batch({ producerId, producerEpoch: 0, baseSequence: 0, records: 2 });
    s.append([part('orders', 1, [idempotent])], NOW_MS);
    for (let i = 0; i < 4; i++) s.append([part('state', 0, [batch({ records: 3 })])], NOW_MS);
    for (let i = 0; i < 20 && (await s.compactStep(NOW_MS + 86_400_000)).working; i++);
    // A committed, an aborted and an ongoing transaction.
    for (const [id, commit] of [
      ['tx-commit', true],
      ['tx-abort', false],
      ['tx-open', undefined],
    ] as const) {
      const info = s.initTransaction(id, 60000, NOW_MS);
      s.addToTransaction(id, [{ topic: 'orders', partition: 2 }], ['g'], NOW_MS);
      const b = batch({
        producerId: info.producerId,
        producerEpoch: info.producerEpoch,
        baseSequence: 0,
        transactional: true,
      });
      s.append([part('orders', 2, [b])], NOW_MS);
      s.commitTransactionalOffsets(
        id,
        'g',
        [{ topic: 'orders', partition: 2, offset: 1, leaderEpoch: 0, metadata: null }],
        NOW_MS,
      );
      if (commit !== undefined) s.endTransaction(id, commit, NOW_MS);
    }
    s.commitOffsets('g', [{ topic: 'orders', partition: 0, offset: 5, leaderEpoch: 0, metadata: 'm' }], NOW_MS);
    s.storeGroupMetadata('g', {
      groupId: 'g',
      protocolType: 'consumer',
      generationId: 3,
      protocolName: 'range',
      leaderId: 'm-1',
      updatedMs: NOW_MS,
      members: [
        {
          memberId: 'm-1',
          groupInstanceId: null,
          clientId: 'c',
          clientHost: '/127.0.0.1',
          rebalanceTimeoutMs: 60_000,
          sessionTimeoutMs: 10_000,
          subscription: Buffer.from([0, 1]),
          assignment: Buffer.from([2, 3]),
        },
      ],
    });
    s.storeSharePartition('share-g', 'topic-id', 0, {
      startOffset: 3_000_000_000,
      endOffset: 3_000_000_002,
      records: [{ offset: 3_000_000_001, state: 2, deliveryCount: 1 }],
    });
    s.alterBrokerConfigs('', { 'log.retention.ms': '1000' }, []);
    s.createAcls([
      {
        resourceType: 'TOPIC',
        resourceName: 'orders',
        patternType: 'LITERAL',
        principal: 'User:alice',
        host: '*',
        operation: 'READ',
        permissionType: 'ALLOW',
      },
    ]);
    s.alterClientQuotas([{ entity: { user: 'alice' }, set: { producer_byte_rate: 1024.5 }, remove: [] }]);
    const cred = await credentialFromPassword('SCRAM-SHA-256', 'pw', 4096);
    s.alterScramCredentials([{ user: 'alice', mechanism: 'SCRAM-SHA-256', ...cred }], []);
  } finally {
    s.close();
  }
}

async function pgRows(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await c.end();
  }
}

/** What the pg-core part of an engine answers about the whole state (reads only). */
async function coreView(s: AsyncStorage) {
  const partitions = [];
  for (const t of await s.listTopics()) {
    for (let p = 0; p < t.partitionCount; p++) {
      const offsets = (await s.offsets(t.name, p))!;
      const all = await s.read(t.name, p, offsets.logStartOffset, 1e9);
      const committed = await s.read(t.name, p, offsets.logStartOffset, 1e9, true, true);
      partitions.push({
        name: `${t.name}-${p}`,
        offsets,
        lso: await s.lastStableOffset(t.name, p),
        bytes: await s.partitionBytes(t.name, p),
        all: { ...all, batches: Buffer.concat(all.batches).toString('hex') },
        committed: { ...committed, batches: Buffer.concat(committed.batches).toString('hex') },
        byTime: await s.batchForTimestamp(t.name, p, 0),
        maxTime: await s.batchWithMaxTimestamp(t.name, p),
      });
    }
  }
  return {
    identity: await s.identity({ nodeId: 99 }),
    topics: await s.listTopics(),
    totalPartitions: await s.totalPartitions(),
    partitions,
    groups: await s.offsetGroups(),
    offsets: await s.fetchOffsets('g'),
  };
}

/** What the pg-rest part answers: transactions, configs, quotas, users, ACLs, the cleaner. */
async function restView(s: AsyncStorage) {
  return {
    transactions: await s.transactions(),
    pending: await s.pendingTransactionalOffsets('g'),
    brokerConfigs: await s.brokerConfigs(''),
    quotas: await s.clientQuotas(),
    users: await s.scramCredentials(),
    alice: await s.scramCredential('alice', 'SCRAM-SHA-256'),
    acls: await s.listAcls(),
    cleaner: await s.cleanerState('state', 0, NOW_MS),
  };
}

/** Values as comparable JSON: bigint strings and numbers alike, buffers as hex. */
const normal = (rows: Record<string, unknown>[]) =>
  rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [
        k,
        Buffer.isBuffer(v) ? v.toString('hex') : typeof v === 'number' || typeof v === 'bigint' ? String(v) : v,
      ]),
    ),
  );

describeWithTools('postgresql')('minnow migrate', () => {
  let server: PostgresServer;
  let n = 0;
  const source = () => join(dir, `source${n}.db`);
  beforeAll(async () => {
    server = await postgresServer();
  });
  afterAll(() => server?.stop());
  beforeEach(async () => {
    n++;
    await buildSource(source());
  });

  it('copies every table row for row and verifies it', async () => {
    const target = await server.createDatabase('migrate_copy');
    const progress: string[] = [];
    const report = await migrateSqliteToPostgres(source(), target, {
      chunkBytes: 1000,
      progress: (l) => progress.push(l),
    });
    expect(report.rows.filter((r) => !r.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(progress.some((l) => /copied orders-0: \d+ batches/.test(l))).toBe(true);

    const src = new Database(source(), { readonly: true });
    try {
      for (const t of COPIED_TABLES) {
        const expected = src.prepare(`SELECT * FROM ${t.name} ORDER BY ${t.orderBy}`).all() as Record<
          string,
          unknown
        >[];
        expect(expected.length).toBeGreaterThan(0); // the source has something in every table
        const copied = await pgRows(target, `SELECT * FROM ${t.name} ORDER BY ${t.orderBy}`);
        expect({ table: t.name, rows: normal(copied) }).toEqual({ table: t.name, rows: normal(expected) });
      }
      // New ids never reuse the source's: topics, partitions and producer ids continue after them.
      const maxProducer = src.prepare('SELECT max(producer_id) FROM producer').pluck().get() as number;
      const [next] = await pgRows(target, "SELECT nextval('producer_id_seq') AS id");
      expect(Number(next!.id)).toBeGreaterThan(maxProducer);
      const [topicId] = await pgRows(target, "SELECT nextval(pg_get_serial_sequence('topic', 'id')) AS id");
      expect(Number(topicId!.id)).toBeGreaterThan(src.prepare('SELECT max(id) FROM topic').pluck().get() as number);
    } finally {
      src.close();
    }
  });

  describe('a postgres:// engine on the target answers as the sqlite:// one did', () => {
    let lite: AsyncStorage;
    let pg: AsyncStorage;
    beforeEach(async () => {
      const target = await server.createDatabase('migrate_engine');
      expect((await migrateSqliteToPostgres(source(), target)).ok).toBe(true);
      lite = promised(new SqliteStorage(source()));
      pg = await PostgresStorage.open(target);
    });
    afterEach(async () => {
      await lite.close();
      await pg.close();
    });

    it('topics, records, offsets, identity, group offsets, producer state', async () => {
      expect(await coreView(pg)).toEqual(await coreView(lite));
      // The idempotent producer's retry is still recognised: answered with its offset, not stored.
      const [again] = await pg.append([part('orders', 1, [resend(idempotent)])], NOW_MS);
      const [original] = await lite.append([part('orders', 1, [resend(idempotent)])], NOW_MS);
      expect(again).toEqual(original);
      expect(await pg.offsets('orders', 1)).toEqual(await lite.offsets('orders', 1));
      // Producer ids continue where the source left off (none handed out twice).
      expect((await pg.initProducerId(null, NOW_MS)).producerId).toBe(
        (await lite.initProducerId(null, NOW_MS)).producerId,
      );
    });

    it('transactions, broker configs, quotas, users, ACLs, cleaner state', async () => {
      expect(await restView(pg)).toEqual(await restView(lite));
    });
  });

  it('copies what a killed broker left in the WAL (no checkpoint since)', async () => {
    // A broker process appends and is SIGKILLed: its last batches are only in minnow.db-wal.
    const path = join(dir, `killed${n}.db`);
    const script = `
      const { SqliteStorage } = require(${JSON.stringify(require.resolve('../../src/storage/sqlite/sqlite-storage'))});
      const { batch, part } = require(${JSON.stringify(require.resolve('./fixtures'))});
      const s = new SqliteStorage(${JSON.stringify(path)}, { walAutocheckpointPages: 0, checkpointIntervalMs: 0 });
      s.createTopic('t', 1, {});
      for (let i = 0; i < 7; i++) s.append([part('t', 0, [batch({ records: 2 })])], ${NOW_MS});
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { timeout: 60_000 });
    expect(child.signal).toBe('SIGKILL');
    expect(existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0).toBe(true);
    const target = await server.createDatabase('migrate_killed');
    const report = await migrateSqliteToPostgres(path, target);
    expect(report.rows.filter((r) => !r.ok)).toEqual([]);
    expect(report.rows.find((r) => r.what === 'partition t-0')!.target).toBe('7 batches 0..13 log 0..14');
  });

  it('refuses a target that is not empty, and a source a broker holds', async () => {
    const target = await server.createDatabase('migrate_twice');
    expect((await migrateSqliteToPostgres(source(), target)).ok).toBe(true);
    await expect(migrateSqliteToPostgres(source(), target)).rejects.toThrow(/target database is not empty/);

    const other = await server.createDatabase('migrate_locked');
    const broker = new SqliteStorage(source());
    try {
      await expect(migrateSqliteToPostgres(source(), other)).rejects.toThrow(/broker must be stopped/);
    } finally {
      broker.close();
    }
    expect((await migrateSqliteToPostgres(source(), other)).ok).toBe(true);
  });

  it('fails the verify when one byte of one batch differs, or one value of a row, naming them', async () => {
    const target = await server.createDatabase('migrate_corrupt');
    const lines: string[] = [];
    expect(
      await migrateCommand(
        [`sqlite://${source()}`, target],
        (l) => lines.push(l),
        () => {},
      ),
    ).toBe(0);
    expect(lines.join('\n')).toMatch(/md5 orders-1 +[0-9a-f]{32} +[0-9a-f]{32} +ok/);
    await pgRows(
      target,
      `UPDATE record_batch SET data = set_byte(data, 70, (get_byte(data, 70) + 1) % 256)
       WHERE partition_id = (SELECT p.id FROM partition p JOIN topic t ON t.id = p.topic_id WHERE t.name = 'orders' AND p.partition_index = 1)
       AND base_offset = (SELECT min(base_offset) FROM record_batch b WHERE b.partition_id = record_batch.partition_id)`,
    );
    const report = await verifyMigration(source(), target);
    expect(report.ok).toBe(false);
    expect(report.rows.filter((r) => !r.ok).map((r) => r.what)).toEqual(['md5 orders-1']);
    lines.length = 0;
    expect(
      await migrateCommand(
        [`sqlite://${source()}`, target, '--verify-only'],
        (l) => lines.push(l),
        () => {},
      ),
    ).toBe(1);
    expect(lines.join('\n')).toMatch(/md5 orders-1 .* DIFFERENT/);
    // A changed row of another table: the same count, a different content.
    await pgRows(target, "UPDATE group_offset SET committed_offset = committed_offset + 1 WHERE group_id = 'g'");
    const again = await verifyMigration(source(), target);
    expect(again.rows.filter((r) => !r.ok).map((r) => r.what)).toEqual(['content group_offset', 'md5 orders-1']);
  });
});
