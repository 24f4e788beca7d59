// Topics, their partitions and config overrides. The catalog is cached in memory (Metadata and
// every produce/fetch look it up): loaded once at open, then each change updates the database and
// the cache for that one topic in the same transaction, so creating a topic costs O(its partitions)
// whatever the catalog holds (a full reload per topic made a 2,000-topic CreateTopics quadratic:
// issue 11). The undo log puts the cache back if the transaction rolls back. Partition offsets in
// the cache change with appends (records.ts).
import type Database from 'better-sqlite3';
import { randomUuid } from '../../protocol/uuid';
import { StorageError } from '../storage';
import {
  checkNoShrink,
  checkPartitionCount,
  copyTopicInfo,
  topicExistsError,
  topicIdTakenError,
  unknownTopicError,
} from '../topic-rules';
import type { NewTopic, TopicInfo } from '../storage';
import type { PartitionTail } from '../tail-cache';
import { eachOnItsOwn } from '../topic-batches';
import type { Transactor } from './transaction';

export interface PartitionEntry {
  id: number;
  logStartOffset: number;
  highWatermark: number;
  /** Sum of the partition's batch sizes, loaded when retention first needs it. */
  bytes: number | undefined;
  /**
   * Producer id -> first offset of its ongoing transaction here (the open_txn rows, loaded at
   * open): the last stable offset without a query.
   */
  openTxns: Map<number, number>;
  /** Its batches in the tail cache (tail-cache.ts), made at the first append or read. */
  tail?: PartitionTail;
}

interface TopicEntry {
  id: number;
  info: TopicInfo;
  partitions: PartitionEntry[];
}

export class Topics {
  private readonly byName = new Map<string, TopicEntry>();
  private readonly byUuid = new Map<string, TopicEntry>();
  /** The topics sorted by name (as list() returns them), rebuilt on the first list() after a create or delete. */
  private sorted: TopicEntry[] | undefined;
  private partitionTotal = 0;
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
      openTxns: db.prepare(
        'SELECT partition_id AS partitionId, producer_id AS producerId, first_offset AS firstOffset FROM open_txn',
      ),
      insertTopic: db.prepare('INSERT INTO topic (name, topic_uuid, partitions, created_ms) VALUES (?, ?, ?, ?)'),
      setPartitionCount: db.prepare('UPDATE topic SET partitions = ? WHERE id = ?'),
      insertPartition: db.prepare('INSERT INTO partition (topic_id, partition_index) VALUES (?, ?)'),
      setConfig: db.prepare(
        'INSERT INTO topic_config (topic_id, name, value) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET value = excluded.value',
      ),
      removeConfig: db.prepare('DELETE FROM topic_config WHERE topic_id = ? AND name = ?'),
      // Children first: the foreign keys have no ON DELETE CASCADE, so a forgotten table fails loudly.
      deleteTopic: [
        'DELETE FROM record_batch WHERE partition_id IN (SELECT id FROM partition WHERE topic_id = ?)',
        'DELETE FROM txn_partition WHERE partition_id IN (SELECT id FROM partition WHERE topic_id = ?)',
        'DELETE FROM open_txn WHERE partition_id IN (SELECT id FROM partition WHERE topic_id = ?)',
        'DELETE FROM aborted_txn WHERE partition_id IN (SELECT id FROM partition WHERE topic_id = ?)',
        'DELETE FROM producer_partition WHERE partition_id IN (SELECT id FROM partition WHERE topic_id = ?)',
        'DELETE FROM log_cleaner WHERE partition_id IN (SELECT id FROM partition WHERE topic_id = ?)',
        'DELETE FROM partition WHERE topic_id = ?',
        'DELETE FROM topic_config WHERE topic_id = ?',
        'DELETE FROM topic WHERE id = ?',
      ].map((sql) => db.prepare(sql)),
      deleteTopicOffsets: db.prepare('DELETE FROM group_offset WHERE topic = ?'),
      deleteTopicTxnOffsets: db.prepare('DELETE FROM txn_offset WHERE topic = ?'),
    };
    this.load();
  }

  /** Builds the cache from the database (at open only). */
  private load(): void {
    const configs = new Map<number, Record<string, string>>();
    for (const c of this.q.configs.all() as { topicId: number; name: string; value: string }[]) {
      const m = configs.get(c.topicId) ?? {};
      m[c.name] = c.value;
      configs.set(c.topicId, m);
    }
    const partitions = new Map<number, PartitionEntry[]>();
    const byId = new Map<number, PartitionEntry>();
    type PartitionRow = { id: number; topicId: number; idx: number; logStartOffset: number; highWatermark: number };
    for (const p of this.q.partitions.all() as PartitionRow[]) {
      const list = partitions.get(p.topicId) ?? [];
      const entry: PartitionEntry = {
        id: p.id,
        logStartOffset: p.logStartOffset,
        highWatermark: p.highWatermark,
        bytes: undefined,
        openTxns: new Map(),
      };
      list[p.idx] = entry;
      byId.set(p.id, entry);
      partitions.set(p.topicId, list);
    }
    type OpenRow = { partitionId: number; producerId: number; firstOffset: number };
    for (const o of this.q.openTxns.all() as OpenRow[])
      byId.get(o.partitionId)?.openTxns.set(o.producerId, o.firstOffset);
    for (const t of this.q.topics.all() as { id: number; name: string; topicId: string; partitions: number }[]) {
      this.add({
        id: t.id,
        info: { name: t.name, topicId: t.topicId, partitionCount: t.partitions, configs: configs.get(t.id) ?? {} },
        partitions: partitions.get(t.id) ?? [],
      });
    }
  }

  list(): TopicInfo[] {
    this.sorted ??= [...this.byName.values()].sort((a, b) =>
      a.info.name < b.info.name ? -1 : a.info.name > b.info.name ? 1 : 0,
    );
    return this.sorted.map((t) => copyTopicInfo(t.info));
  }

  /** Partitions of all topics together. */
  totalPartitions(): number {
    return this.partitionTotal;
  }

  get(name: string): TopicInfo | undefined {
    const t = this.byName.get(name);
    return t && copyTopicInfo(t.info);
  }

  getById(topicId: string): TopicInfo | undefined {
    const t = this.byUuid.get(topicId);
    return t && copyTopicInfo(t.info);
  }

  /** The cached configs of a topic (not copied: read-only for callers). */
  configs(name: string): Record<string, string> | undefined {
    return this.byName.get(name)?.info.configs;
  }

  partition(topic: string, partition: number): PartitionEntry | undefined {
    return this.byName.get(topic)?.partitions[partition];
  }

  /** Every topic with its configs and partitions, for retention's sweep. */
  *forSweep(): Generator<{ name: string; configs: Record<string, string>; partitions: PartitionEntry[] }> {
    for (const t of this.byName.values())
      yield { name: t.info.name, configs: t.info.configs, partitions: t.partitions };
  }

  create(
    name: string,
    partitionCount: number,
    configs: Record<string, string>,
    topicId: string | undefined,
    nowMs: number,
  ): TopicInfo {
    if (this.byName.has(name)) throw topicExistsError(name);
    checkPartitionCount(name, partitionCount);
    const uuid = topicId ?? randomUuid();
    if (this.byUuid.has(uuid)) throw topicIdTakenError(uuid, this.byUuid.get(uuid)!.info.name);
    return this.tx.run(() => {
      const id = Number(this.q.insertTopic.run(name, uuid, partitionCount, nowMs).lastInsertRowid);
      const partitions = this.insertPartitions(id, 0, partitionCount);
      for (const [k, v] of Object.entries(configs)) this.q.setConfig.run(id, k, v);
      const entry: TopicEntry = {
        id,
        info: { name, topicId: uuid, partitionCount, configs: { ...configs } },
        partitions,
      };
      this.add(entry);
      this.tx.onRollback(() => this.remove(entry));
      return copyTopicInfo(entry.info);
    });
  }

  /** create() for each topic in one transaction, each in a savepoint: a refused topic leaves the others. */
  createMany(topics: readonly NewTopic[], nowMs: number): (TopicInfo | StorageError)[] {
    return this.tx.run(() =>
      eachOnItsOwn(topics, (t) => this.create(t.name, t.partitionCount, t.configs, t.topicId, nowMs)),
    );
  }

  /** delete() for each name in one transaction, as createMany; the deleted partitions' ids go to `gone`. */
  deleteMany(names: readonly string[], gone: number[]): (boolean | StorageError)[] {
    return this.tx.run(() =>
      eachOnItsOwn(names, (name) => {
        const ids = this.delete(name);
        if (ids) gone.push(...ids);
        return ids !== undefined;
      }),
    );
  }

  /** Deletes the topic with all it owns; returns its partition ids (for other caches), or undefined. */
  delete(name: string): number[] | undefined {
    const t = this.byName.get(name);
    if (!t) return undefined;
    this.tx.run(() => {
      for (const stmt of this.q.deleteTopic) stmt.run(t.id);
      this.q.deleteTopicOffsets.run(name);
      this.q.deleteTopicTxnOffsets.run(name);
      this.remove(t);
      this.tx.onRollback(() => this.add(t));
    });
    return t.partitions.map((p) => p.id);
  }

  grow(name: string, partitionCount: number): void {
    const t = this.mustGet(name);
    checkPartitionCount(name, partitionCount);
    checkNoShrink(name, t.info.partitionCount, partitionCount);
    const before = t.info.partitionCount;
    this.tx.run(() => {
      const added = this.insertPartitions(t.id, before, partitionCount);
      this.q.setPartitionCount.run(partitionCount, t.id);
      t.partitions.push(...added);
      t.info.partitionCount = partitionCount;
      this.partitionTotal += partitionCount - before;
      this.tx.onRollback(() => {
        t.partitions.length = before;
        t.info.partitionCount = before;
        this.partitionTotal -= partitionCount - before;
      });
    });
  }

  alterConfigs(name: string, set: Record<string, string>, remove: readonly string[]): void {
    const t = this.mustGet(name);
    this.tx.run(() => {
      for (const k of remove) this.q.removeConfig.run(t.id, k);
      for (const [k, v] of Object.entries(set)) this.q.setConfig.run(t.id, k, v);
      const old = t.info.configs;
      const configs = { ...old };
      for (const k of remove) delete configs[k];
      t.info.configs = Object.assign(configs, set);
      this.tx.onRollback(() => (t.info.configs = old));
    });
  }

  /** Inserts partitions from..to-1 of a topic; returns their cache entries (new partitions are empty). */
  private insertPartitions(topicId: number, from: number, to: number): PartitionEntry[] {
    const entries: PartitionEntry[] = [];
    for (let i = from; i < to; i++) {
      const id = Number(this.q.insertPartition.run(topicId, i).lastInsertRowid);
      entries.push({ id, logStartOffset: 0, highWatermark: 0, bytes: 0, openTxns: new Map() });
    }
    return entries;
  }

  private add(t: TopicEntry): void {
    this.byName.set(t.info.name, t);
    this.byUuid.set(t.info.topicId, t);
    this.partitionTotal += t.partitions.length;
    this.sorted = undefined;
  }

  private remove(t: TopicEntry): void {
    this.byName.delete(t.info.name);
    this.byUuid.delete(t.info.topicId);
    this.partitionTotal -= t.partitions.length;
    this.sorted = undefined;
  }

  private mustGet(name: string): TopicEntry {
    const t = this.byName.get(name);
    if (!t) throw unknownTopicError(name);
    return t;
  }
}
