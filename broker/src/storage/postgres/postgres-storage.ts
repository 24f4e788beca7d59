// The postgres:// engine (docs/postgres.md): the broker's state in PostgreSQL, shared by every
// broker on the same database. This file opens the pool (migrations first) and hands each call to
// the module for its concern: topics.ts, append.ts, records.ts, retention.ts, offsets.ts,
// producers.ts. Nothing is cached that another broker's write could make stale.
import { randomUuid } from '../../protocol/uuid';
import type { AclBinding } from '../../protocol/acl';
import type { ScramCredential, ScramMechanismName } from '../../sasl/scram-crypto';
import { StorageError } from '../storage';
import { eachOnItsOwnAsync } from '../topic-batches';
import type {
  NewTopic,
  AsyncStorage,
  CleanerOptions,
  CleanerState,
  ClientQuotaChange,
  ClientQuotaEntry,
  ClusterIdentity,
  CommittedOffset,
  StoredGroup,
  CompactionStepResult,
  DeleteRecordsResult,
  EndTransactionResult,
  EpochBump,
  PartitionAppend,
  PartitionAppendResult,
  PartitionOffsets,
  ReadResult,
  RetentionDefaults,
  RetentionResult,
  RetentionWindow,
  StoredBatch,
  TopicInfo,
  TransactionInfo,
  TxnPartition,
  UserScramCredential,
  UserScramCredentialInfo,
} from '../storage';
import { Cleaner } from '../compaction/cleaner';
import { append } from './append';
import { activeProducers, writeTxnMarker } from './active-producers';
import { PgCleanerLog } from './cleaner';
import { Db } from './db';
import type { DbOptions } from './db';
import { GroupOffsets } from './offsets';
import { GroupMetadataStore } from './group-metadata';
import { SharePartitionStore } from './share-partitions';
import type { StoredSharePartition, StoredSharePartitionOfGroup } from '../share-store';
import { newProducerId } from './producers';
import { Records } from './records';
import { PgSecurity } from './security';
import { deleteRecords, enforceRetention } from './retention';
import { migrate } from './schema';
import { Topics } from './topics';
import { PgTransactions } from './transactions';
import { postgresPoolConfig } from './url';

export type PostgresStorageOptions = DbOptions;

export class PostgresStorage implements AsyncStorage {
  private readonly topics: Topics;
  private readonly records: Records;
  private readonly groupOffsets: GroupOffsets;
  private readonly groupMembers: GroupMetadataStore;
  private readonly shareState: SharePartitionStore;
  private readonly txns: PgTransactions;
  private readonly cleaner: Cleaner;
  /** ACLs, client quotas, SCRAM users, broker configs; invalidate() when another broker announces a change. */
  readonly security: PgSecurity;
  private identityCache: ClusterIdentity | undefined;

  private constructor(
    /** The URL without its password (logs, DescribeLogDirs). */
    readonly url: string,
    /** The pool; pg-rest's and the cluster's modules share it. */
    readonly db: Db,
  ) {
    this.topics = new Topics(db);
    this.records = new Records(db);
    this.groupOffsets = new GroupOffsets(db);
    this.groupMembers = new GroupMetadataStore(db);
    this.shareState = new SharePartitionStore(db);
    this.txns = new PgTransactions(db);
    this.cleaner = new Cleaner(new PgCleanerLog(db));
    this.security = new PgSecurity(db);
  }

  /** Connects, applies pending migrations (refusing a newer schema) and returns the engine. */
  static async open(url: string, opts: PostgresStorageOptions = {}): Promise<PostgresStorage> {
    const { config, redacted, options } = postgresPoolConfig(url);
    const db = new Db(config, { ...opts, ...options }); // the URL's options win, as sqlite's ?synchronous=
    try {
      await migrate(db, Date.now());
    } catch (err) {
      await db.close().catch(() => {});
      if (err instanceof StorageError && err.code === undefined) throw err; // schema refusal: as is
      throw new StorageError(`cannot open ${redacted}: ${(err as Error).message}`, {
        cause: err,
        code: (err as StorageError).code,
      });
    }
    return new PostgresStorage(redacted, db);
  }

  async identity(wanted: Partial<ClusterIdentity>): Promise<ClusterIdentity> {
    if (!this.identityCache) {
      // Whoever comes first stores it; everyone reads the stored row.
      await this.db.query(
        'INSERT INTO cluster (id, cluster_id, node_id) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING',
        [wanted.clusterId ?? randomUuid(), wanted.nodeId ?? 1],
      );
      const [row] = await this.db.query<ClusterIdentity>(
        'SELECT cluster_id AS "clusterId", node_id AS "nodeId" FROM cluster WHERE id = 1',
      );
      this.identityCache = row!;
    }
    return { ...this.identityCache };
  }

  // Topics
  listTopics(): Promise<TopicInfo[]> {
    return this.topics.list();
  }
  totalPartitions(): Promise<number> {
    return this.topics.totalPartitions();
  }
  topic(name: string): Promise<TopicInfo | undefined> {
    return this.topics.get(name);
  }
  topicById(topicId: string): Promise<TopicInfo | undefined> {
    return this.topics.getById(topicId);
  }
  createTopic(
    name: string,
    partitionCount: number,
    configs: Record<string, string>,
    topicId?: string,
  ): Promise<TopicInfo> {
    return this.topics.create(name, partitionCount, configs, topicId, Date.now());
  }
  deleteTopic(name: string): Promise<boolean> {
    return this.topics.delete(name);
  }
  createTopics(topics: readonly NewTopic[]): Promise<(TopicInfo | StorageError)[]> {
    const nowMs = Date.now();
    return eachOnItsOwnAsync(topics, (t) => this.topics.create(t.name, t.partitionCount, t.configs, t.topicId, nowMs));
  }
  deleteTopics(names: readonly string[]): Promise<(boolean | StorageError)[]> {
    return eachOnItsOwnAsync(names, (name) => this.topics.delete(name));
  }
  createPartitions(name: string, partitionCount: number): Promise<void> {
    return this.topics.grow(name, partitionCount);
  }
  alterTopicConfigs(name: string, set: Record<string, string>, remove: readonly string[]): Promise<void> {
    return this.topics.alterConfigs(name, set, remove);
  }

  // Records
  append(parts: readonly PartitionAppend[], nowMs: number): Promise<PartitionAppendResult[]> {
    return append(this.db, parts, nowMs);
  }
  read(
    topic: string,
    partition: number,
    fetchOffset: number,
    maxBytes: number,
    minOneBatch?: boolean,
    readCommitted?: boolean,
  ): Promise<ReadResult> {
    return this.records.read(topic, partition, fetchOffset, maxBytes, minOneBatch, readCommitted);
  }
  offsets(topic: string, partition: number): Promise<PartitionOffsets | undefined> {
    return this.records.offsets(topic, partition);
  }
  lastStableOffset(topic: string, partition: number): Promise<number | undefined> {
    return this.records.lastStableOffset(topic, partition);
  }
  partitionBytes(topic: string, partition: number): Promise<number | undefined> {
    return this.records.partitionBytes(topic, partition);
  }
  batchForTimestamp(topic: string, partition: number, timestampMs: number): Promise<StoredBatch | undefined> {
    return this.records.batchForTimestamp(topic, partition, timestampMs);
  }
  batchWithMaxTimestamp(topic: string, partition: number): Promise<StoredBatch | undefined> {
    return this.records.batchWithMaxTimestamp(topic, partition);
  }
  deleteRecords(topic: string, partition: number, offset: number): Promise<DeleteRecordsResult> {
    return deleteRecords(this.db, topic, partition, offset);
  }
  enforceRetention(
    nowMs: number,
    defaults: RetentionDefaults,
    maxBatches: number,
    window?: RetentionWindow,
  ): Promise<RetentionResult> {
    return enforceRetention(this.db, nowMs, defaults, maxBatches, window);
  }

  // Producers
  async initProducerId(
    transactionalId: string | null,
    nowMs: number,
  ): Promise<{ producerId: number; producerEpoch: number }> {
    if (transactionalId === null) return { producerId: await newProducerId(this.db, null, nowMs), producerEpoch: 0 };
    // A transactional id's producer id and epoch live in its txn row (transactions.ts).
    // Its stored timeout kept, else the default (one statement in the common case).
    const info = await this.txns.init(transactionalId, undefined, nowMs);
    return { producerId: info.producerId, producerEpoch: info.producerEpoch };
  }

  // Consumer group offsets
  commitOffsets(
    groupId: string,
    offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[],
    nowMs: number,
  ): Promise<void> {
    return this.groupOffsets.commit(groupId, offsets, nowMs);
  }
  fetchOffsets(groupId: string): Promise<CommittedOffset[]> {
    return this.groupOffsets.fetch(groupId);
  }
  deleteOffsets(groupId: string, partitions?: readonly { topic: string; partition: number }[]): Promise<void> {
    return this.groupOffsets.delete(groupId, partitions);
  }
  offsetGroups(): Promise<string[]> {
    return this.groupOffsets.groups();
  }
  storeGroupMetadata(groupId: string, group: StoredGroup | null): Promise<void> {
    return this.groupMembers.store(groupId, group);
  }
  groupMetadata(groupId: string): Promise<StoredGroup | undefined> {
    return this.groupMembers.load(groupId);
  }
  storeSharePartition(
    groupId: string,
    topicId: string,
    partition: number,
    state: StoredSharePartition | null,
  ): Promise<void> {
    return this.shareState.store(groupId, topicId, partition, state);
  }
  sharePartition(groupId: string, topicId: string, partition: number): Promise<StoredSharePartition | undefined> {
    return this.shareState.load(groupId, topicId, partition);
  }
  sharePartitionsOfGroup(groupId: string): Promise<StoredSharePartitionOfGroup[]> {
    return this.shareState.ofGroup(groupId);
  }

  // Transactions (pg-rest: transactions.ts)
  transactions(): Promise<TransactionInfo[]> {
    return this.txns.list();
  }
  transaction(transactionalId: string): Promise<TransactionInfo | undefined> {
    return this.txns.get(transactionalId);
  }
  initTransaction(transactionalId: string, timeoutMs: number, nowMs: number): Promise<TransactionInfo> {
    return this.txns.init(transactionalId, timeoutMs, nowMs);
  }
  addToTransaction(
    transactionalId: string,
    partitions: readonly TxnPartition[],
    groups: readonly string[],
    nowMs: number,
  ): Promise<TransactionInfo> {
    return this.txns.add(transactionalId, partitions, groups, nowMs);
  }
  commitTransactionalOffsets(
    transactionalId: string,
    groupId: string,
    offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[],
    nowMs: number,
  ): Promise<void> {
    return this.txns.commitOffsets(transactionalId, groupId, offsets, nowMs);
  }
  activeProducers(topic: string, partition: number) {
    return activeProducers(this.db, topic, partition);
  }
  writeTxnMarker(topic: string, partition: number, producerId: number, epoch: number, commit: boolean, nowMs: number) {
    return writeTxnMarker(this.db, topic, partition, producerId, epoch, commit, nowMs);
  }
  endTransaction(
    transactionalId: string,
    commit: boolean,
    nowMs: number,
    bump?: EpochBump,
  ): Promise<EndTransactionResult> {
    return this.txns.endTransaction(transactionalId, commit, nowMs, bump);
  }
  pendingTransactionalOffsets(groupId: string): Promise<TxnPartition[]> {
    return this.txns.pendingOffsets(groupId);
  }
  deleteTransaction(transactionalId: string): Promise<boolean> {
    return this.txns.delete(transactionalId);
  }

  // Compaction (pg-rest: cleaner.ts)
  compactStep(nowMs: number, opts?: CleanerOptions): Promise<CompactionStepResult> {
    return this.cleaner.step(nowMs, opts);
  }
  cleanerState(
    topic: string,
    partition: number,
    nowMs: number,
    brokerDefaults?: Readonly<Record<string, string>>,
  ): Promise<CleanerState | undefined> {
    return this.cleaner.state(topic, partition, nowMs, brokerDefaults);
  }

  // Broker configs, quotas, SCRAM, ACLs (pg-rest: security.ts)
  brokerConfigs(resource: string): Promise<Record<string, string>> {
    return this.security.brokerConfigs(resource);
  }
  alterBrokerConfigs(resource: string, set: Record<string, string>, remove: readonly string[]): Promise<void> {
    return this.security.alterBrokerConfigs(resource, set, remove);
  }
  clientQuotas(): Promise<ClientQuotaEntry[]> {
    return this.security.clientQuotas();
  }
  alterClientQuotas(changes: readonly ClientQuotaChange[]): Promise<void> {
    return this.security.alterClientQuotas(changes);
  }
  scramCredential(user: string, mechanism: ScramMechanismName): Promise<ScramCredential | undefined> {
    return this.security.scramCredential(user, mechanism);
  }
  scramCredentials(): Promise<UserScramCredentialInfo[]> {
    return this.security.scramCredentials();
  }
  alterScramCredentials(
    upserts: readonly UserScramCredential[],
    deletions: readonly { user: string; mechanism: ScramMechanismName }[],
  ): Promise<void> {
    return this.security.alterScramCredentials(upserts, deletions);
  }
  listAcls(): Promise<AclBinding[]> {
    return this.security.listAcls();
  }
  createAcls(bindings: readonly AclBinding[]): Promise<void> {
    return this.security.createAcls(bindings);
  }
  deleteAcls(bindings: readonly AclBinding[]): Promise<number> {
    return this.security.deleteAcls(bindings);
  }
  /** A file copy of a shared database is PostgreSQL's job, not a broker's. */
  async backup(_destPath: string): Promise<void> {
    throw new StorageError(
      `${this.url}: minnow backup copies SQLite files only; back a PostgreSQL database up with pg_dump (or RDS automated backups / snapshots)`,
    );
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
