// Topics, their partitions and config overrides. The whole catalog is small, so it is cached in
// memory (Metadata and every produce/fetch look it up) and reloaded from the database after each
// topic change, committed or not. Partition offsets in the cache change with appends (records.ts).
import type Database from 'better-sqlite3';
import { randomUuid } from '../../protocol/uuid';
import { StorageError } from '../storage';
import type { TopicInfo } from '../storage';
import type { Transactor } from './transaction';

export interface PartitionEntry {
  id: number;
  logStartOffset: number;
  highWatermark: number;
  /** Sum of the partition's batch sizes, loaded when retention first needs it. */
  bytes: number | undefined;
}

interface TopicEntry {
  id: number;
  info: TopicInfo;
  partitions: PartitionEntry[];
}

export class Topics {
  private byName = new Map<string, TopicEntry>();
  private byUuid = new Map<string, TopicEntry>();
  private readonly q;

  constructor(
    db: Database.Database,
    private readonly tx: Transactor,
  ) {
    this.q = {
      topics: db.prepare('SELECT id, name, topic_uuid AS topicId, partitions FROM topic ORDER BY name'),
      configs: db.prepare('SELECT topic_id AS topicId, name, value FROM topic_config'),
      partitions: db.prepare(
        'SELECT id, topic_id AS topicId, partition_index AS idx, log_start_offset AS logStartOffset, high_watermark AS highWatermark FROM partition ORDER BY topic_id, partition_index',
      ),
      insertTopic: db.prepare('INSERT INTO topic (name, topic_uuid, partitions, created_ms) VALUES (?, ?, ?, ?)'),
      setPartitionCount: db.prepare('UPDATE topic SET partitions = ? WHERE id = ?'),
      insertPartition: db.prepare('INSERT INTO partition (topic_id, partition_index) VALUES (?, ?)'),
      setConfig: db.prepare('INSERT INTO topic_config (topic_id, name, value) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value'),
      removeConfig: db.prepare('DELETE FROM topic_config WHERE topic_id = ? AND name = ?'),
      // Children first: the foreign keys have no ON DELETE CASCADE, so a forgotten table fails loudly.
      deleteTopic: [
        'DELETE FROM record_batch WHERE partition_id IN (SELECT id FROM partition WHERE topic_id = ?)',
        'DELETE FROM producer_partition WHERE partition_id IN (SELECT id FROM partition WHERE topic_id = ?)',
        'DELETE FROM partition WHERE topic_id = ?',
        'DELETE FROM topic_config WHERE topic_id = ?',
        'DELETE FROM topic WHERE id = ?',
      ].map((sql) => db.prepare(sql)),
      deleteTopicOffsets: db.prepare('DELETE FROM group_offset WHERE topic = ?'),
    };
    this.load();
  }

  /** Rebuilds the cache from the database. */
  load(): void {
    const configs = new Map<number, Record<string, string>>();
    for (const c of this.q.configs.all() as { topicId: number; name: string; value: string }[]) {
      const m = configs.get(c.topicId) ?? {};
      m[c.name] = c.value;
      configs.set(c.topicId, m);
    }
    const partitions = new Map<number, PartitionEntry[]>();
    type PartitionRow = { id: number; topicId: number; idx: number; logStartOffset: number; highWatermark: number };
    for (const p of this.q.partitions.all() as PartitionRow[]) {
      const list = partitions.get(p.topicId) ?? [];
      list[p.idx] = { id: p.id, logStartOffset: p.logStartOffset, highWatermark: p.highWatermark, bytes: undefined };
      partitions.set(p.topicId, list);
    }
    this.byName.clear();
    this.byUuid.clear();
    for (const t of this.q.topics.all() as { id: number; name: string; topicId: string; partitions: number }[]) {
      const entry: TopicEntry = {
        id: t.id,
        info: { name: t.name, topicId: t.topicId, partitionCount: t.partitions, configs: configs.get(t.id) ?? {} },
        partitions: partitions.get(t.id) ?? [],
      };
      this.byName.set(t.name, entry);
      this.byUuid.set(t.topicId, entry);
    }
  }

  list(): TopicInfo[] {
    return [...this.byName.values()].map((t) => copyInfo(t.info));
  }

  get(name: string): TopicInfo | undefined {
    const t = this.byName.get(name);
    return t && copyInfo(t.info);
  }

  getById(topicId: string): TopicInfo | undefined {
    const t = this.byUuid.get(topicId);
    return t && copyInfo(t.info);
  }

  /** The cached configs of a topic (not copied: read-only for callers). */
  configs(name: string): Record<string, string> | undefined {
    return this.byName.get(name)?.info.configs;
  }

  partition(topic: string, partition: number): PartitionEntry | undefined {
    return this.byName.get(topic)?.partitions[partition];
  }

  /** Every partition with its topic's configs, for retention. */
  *allPartitions(): Generator<{ topic: string; configs: Record<string, string>; entry: PartitionEntry }> {
    for (const t of this.byName.values()) {
      for (const entry of t.partitions) yield { topic: t.info.name, configs: t.info.configs, entry };
    }
  }

  create(name: string, partitionCount: number, configs: Record<string, string>, topicId: string | undefined, nowMs: number): TopicInfo {
    if (this.byName.has(name)) throw new StorageError(`topic "${name}" already exists; delete it first or pick another name`);
    checkPartitionCount(name, partitionCount);
    const uuid = topicId ?? randomUuid();
    if (this.byUuid.has(uuid)) throw new StorageError(`topic id ${uuid} is already used by topic "${this.byUuid.get(uuid)!.info.name}"`);
    this.change(() => {
      const id = Number(this.q.insertTopic.run(name, uuid, partitionCount, nowMs).lastInsertRowid);
      for (let i = 0; i < partitionCount; i++) this.q.insertPartition.run(id, i);
      for (const [k, v] of Object.entries(configs)) this.q.setConfig.run(id, k, v);
    });
    return this.get(name)!;
  }

  /** Deletes the topic with all it owns; returns its partition ids (for other caches), or undefined. */
  delete(name: string): number[] | undefined {
    const t = this.byName.get(name);
    if (!t) return undefined;
    this.change(() => {
      for (const stmt of this.q.deleteTopic) stmt.run(t.id);
      this.q.deleteTopicOffsets.run(name);
    });
    return t.partitions.map((p) => p.id);
  }

  grow(name: string, partitionCount: number): void {
    const t = this.mustGet(name);
    checkPartitionCount(name, partitionCount);
    if (partitionCount < t.info.partitionCount) {
      throw new StorageError(`topic "${name}" has ${t.info.partitionCount} partitions, cannot shrink to ${partitionCount}; Kafka only adds partitions`);
    }
    this.change(() => {
      for (let i = t.info.partitionCount; i < partitionCount; i++) this.q.insertPartition.run(t.id, i);
      this.q.setPartitionCount.run(partitionCount, t.id);
    });
  }

  alterConfigs(name: string, set: Record<string, string>, remove: readonly string[]): void {
    const t = this.mustGet(name);
    this.change(() => {
      for (const k of remove) this.q.removeConfig.run(t.id, k);
      for (const [k, v] of Object.entries(set)) this.q.setConfig.run(t.id, k, v);
    });
  }

  private mustGet(name: string): TopicEntry {
    const t = this.byName.get(name);
    if (!t) throw new StorageError(`topic "${name}" does not exist; create it first`);
    return t;
  }

  /** A catalog change: in a transaction, then the cache is rebuilt from what the database holds. */
  private change(fn: () => void): void {
    try {
      this.tx.run(fn);
    } finally {
      this.load();
    }
  }
}

function checkPartitionCount(name: string, n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new StorageError(`topic "${name}": partition count ${n} must be a positive integer`);
}

function copyInfo(info: TopicInfo): TopicInfo {
  return { ...info, configs: { ...info.configs } };
}
