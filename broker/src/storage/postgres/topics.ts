// Topics, their partitions and config overrides on PostgreSQL. Not cached: another broker on the
// same database may create or delete a topic at any time, and a stale catalog would answer
// UNKNOWN_TOPIC_OR_PARTITION for a topic that exists (or serve one that is gone). Each lookup is
// one indexed query.
import { randomUuid } from '../../protocol/uuid';
import {
  checkNoShrink,
  checkPartitionCount,
  topicExistsError,
  topicIdTakenError,
  unknownTopicError,
} from '../topic-rules';
import type { TopicInfo } from '../storage';
import { prepared } from './db';
import type { Db, Queryable } from './db';
import { OFFSET_ORDER, TXN_OFFSET_ORDER } from './offsets';

interface TopicRow {
  id: number;
  name: string;
  topic_uuid: string;
  partitions: number;
  configs: Record<string, string>;
}

const TOPIC_SELECT = `SELECT t.id, t.name, t.topic_uuid, t.partitions,
  coalesce((SELECT json_object_agg(c.name, c.value) FROM topic_config c WHERE c.topic_id = t.id), '{}') AS configs
  FROM topic t`;

const TOPIC_BY_NAME = prepared('topic_by_name', `${TOPIC_SELECT} WHERE t.name = $1`);
const TOPIC_BY_ID = prepared('topic_by_id', `${TOPIC_SELECT} WHERE t.topic_uuid = $1`);

/** A partition as appends, reads and retention address it. */
export interface PartitionRef {
  id: number;
  topic: string;
  partition: number;
}

export class Topics {
  constructor(private readonly db: Db) {}

  async list(): Promise<TopicInfo[]> {
    const rows = await this.db.query<TopicRow>(TOPIC_SELECT);
    // Sorted here, not by the database's collation: the same order as the other engines.
    return rows.map(info).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async totalPartitions(): Promise<number> {
    const [row] = await this.db.query<{ n: number }>('SELECT count(*) AS n FROM partition');
    return row!.n;
  }

  async get(name: string, q: Queryable = this.db): Promise<TopicInfo | undefined> {
    const [row] = await q.query<TopicRow>(TOPIC_BY_NAME, [name]);
    return row && info(row);
  }

  async getById(topicId: string): Promise<TopicInfo | undefined> {
    const [row] = await this.db.query<TopicRow>(TOPIC_BY_ID, [topicId]);
    return row && info(row);
  }

  async create(
    name: string,
    partitionCount: number,
    configs: Record<string, string>,
    topicId: string | undefined,
    nowMs: number,
  ): Promise<TopicInfo> {
    checkPartitionCount(name, partitionCount);
    const uuid = topicId ?? randomUuid();
    return this.db.tx(async (q) => {
      // ON CONFLICT DO NOTHING rather than catching the violation: the transaction stays usable.
      const [row] = await q.query<{ id: number }>(
        `INSERT INTO topic (name, topic_uuid, partitions, created_ms) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING id`,
        [name, uuid, partitionCount, nowMs],
      );
      if (!row) {
        const [taken] = await q.query<{ name: string }>('SELECT name FROM topic WHERE name = $1 OR topic_uuid = $2', [
          name,
          uuid,
        ]);
        if (taken?.name === name || !taken) throw topicExistsError(name);
        throw topicIdTakenError(uuid, taken.name);
      }
      await insertPartitions(q, row.id, 0, partitionCount);
      await setConfigs(q, row.id, configs);
      return { name, topicId: uuid, partitionCount, configs: { ...configs } };
    });
  }

  /** Deletes the topic and all it owns (the foreign keys cascade); false if it did not exist. */
  async delete(name: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      // The global lock order (docs/postgres.md): the topic, its partitions in id order (as appends
      // and markers lock them; the cascade's own order is its plan's), then the offsets in (TXN_)OFFSET_ORDER.
      const [t] = await q.query<{ id: number }>('SELECT id FROM topic WHERE name = $1 FOR UPDATE', [name]);
      if (!t) return false;
      await q.query('SELECT 1 FROM partition WHERE topic_id = $1 ORDER BY id FOR UPDATE', [t.id]);
      await q.query(`SELECT 1 FROM group_offset g WHERE g.topic = $1 ORDER BY ${OFFSET_ORDER} FOR UPDATE`, [name]);
      await q.query(`SELECT 1 FROM txn_offset g WHERE g.topic = $1 ORDER BY ${TXN_OFFSET_ORDER} FOR UPDATE`, [name]);
      await q.query('DELETE FROM topic WHERE id = $1', [t.id]);
      await q.query('DELETE FROM group_offset WHERE topic = $1', [name]);
      await q.query('DELETE FROM txn_offset WHERE topic = $1', [name]);
      return true;
    });
  }

  async grow(name: string, partitionCount: number): Promise<void> {
    checkPartitionCount(name, partitionCount);
    await this.db.tx(async (q) => {
      // Locked: two brokers growing one topic at once would insert the same partitions. NO KEY:
      // the id stays, so inserts referencing the topic (its partitions' foreign keys) need not wait.
      const [t] = await q.query<{ id: number; partitions: number }>(
        'SELECT id, partitions FROM topic WHERE name = $1 FOR NO KEY UPDATE',
        [name],
      );
      if (!t) throw unknownTopicError(name);
      checkNoShrink(name, t.partitions, partitionCount);
      await insertPartitions(q, t.id, t.partitions, partitionCount);
      await q.query('UPDATE topic SET partitions = $1 WHERE id = $2', [partitionCount, t.id]);
    });
  }

  async alterConfigs(name: string, set: Record<string, string>, remove: readonly string[]): Promise<void> {
    await this.db.tx(async (q) => {
      const [t] = await q.query<{ id: number }>('SELECT id FROM topic WHERE name = $1 FOR NO KEY UPDATE', [name]);
      if (!t) throw unknownTopicError(name);
      if (remove.length > 0)
        await q.query('DELETE FROM topic_config WHERE topic_id = $1 AND name = ANY($2::text[])', [t.id, [...remove]]);
      await setConfigs(q, t.id, set);
    });
  }

  /** The configs of a topic (its overrides only), undefined if unknown. */
  async configs(name: string): Promise<Record<string, string> | undefined> {
    return (await this.get(name))?.configs;
  }
}

async function insertPartitions(q: Queryable, topicId: number, from: number, to: number): Promise<void> {
  if (to <= from) return;
  await q.query(
    'INSERT INTO partition (topic_id, partition_index) SELECT $1, i FROM generate_series($2::int, $3::int) AS i',
    [topicId, from, to - 1],
  );
}

async function setConfigs(q: Queryable, topicId: number, configs: Record<string, string>): Promise<void> {
  const entries = Object.entries(configs);
  if (entries.length === 0) return;
  await q.query(
    `INSERT INTO topic_config (topic_id, name, value) SELECT $1, n, v FROM unnest($2::text[], $3::text[]) AS u(n, v)
     ON CONFLICT (topic_id, name) DO UPDATE SET value = excluded.value`,
    [topicId, entries.map((e) => e[0]), entries.map((e) => e[1])],
  );
}

function info(row: TopicRow): TopicInfo {
  return { name: row.name, topicId: row.topic_uuid, partitionCount: row.partitions, configs: { ...row.configs } };
}
