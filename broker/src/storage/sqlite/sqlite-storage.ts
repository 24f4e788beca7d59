// The sqlite:// engine: the broker's whole state in one SQLite file, written by one connection.
// open-database.ts opens the file (lock, pragmas, checks, migrations); this class hands each
// Storage call to the module for its concern: topics.ts, records.ts, retention.ts, producers.ts, offsets.ts.
import Database from 'better-sqlite3';
import { StorageError } from '../storage';
import type {
  NewTopic,
  ClientQuotaChange,
  ClientQuotaEntry,
  ClusterIdentity,
  CommittedOffset,
  StoredGroup,
  DeleteRecordsResult,
  EndTransactionResult,
  EpochBump,
  TransactionInfo,
  TxnPartition,
  PartitionAppend,
  PartitionAppendResult,
  PartitionOffsets,
  ReadResult,
  RetentionDefaults,
  RetentionResult,
  RetentionWindow,
  SyncStorage,
  StoredBatch,
  TopicInfo,
  UserScramCredential,
  UserScramCredentialInfo,
} from '../storage';
import type { ScramCredential, ScramMechanismName } from '../../sasl/scram-crypto';
import { ScramCredentials } from './scram-credentials';
import type { AclBinding } from '../../protocol/acl';
import { Acls } from './acls';
import { BrokerConfigs } from './broker-configs';
import { ClientQuotas } from './client-quotas';
import { GroupOffsets } from './offsets';
import { GroupMetadataStore } from './group-metadata';
import { SharePartitionStore } from './share-partitions';
import type { StoredSharePartition, StoredSharePartitionOfGroup } from '../share-store';
import { Producers } from './producers';
import { ActiveProducers } from './active-producers';
import { Records } from './records';
import { Retention } from './retention';
import { SqliteCleanerLog } from './cleaner';
import { Cleaner } from '../compaction/cleaner';
import type { CleanerOptions, CleanerState, CompactionStepResult } from '../compaction/cleaner';
import { Topics } from './topics';
import { Transactions } from './transactions';
import { DEFAULT_TXN_TIMEOUT_MS } from '../txn-rules';
import { TailCache } from '../tail-cache';
import { asStorageError } from './transaction';
import type { Transactor } from './transaction';
import type { Checkpointer } from './checkpointer';
import type { DatabaseLock } from './db-lock';
import { failedStartup, openDatabase } from './open-database';
import { backupDatabase } from './backup';
import { ClusterIdentityStore } from './cluster-identity';
import type { SqliteStorageOptions } from './open-database';

export type { SqliteStorageOptions } from './open-database';

export class SqliteStorage implements SyncStorage {
  readonly url: string;
  private readonly db: Database.Database;
  private readonly tx: Transactor;
  private readonly topics: Topics;
  private readonly producers: Producers;
  private readonly activeProducerStates: ActiveProducers;
  private readonly records: Records;
  private readonly retention: Retention;
  private readonly cleaner: Cleaner;
  private readonly groupOffsets: GroupOffsets;
  private readonly groupMembers: GroupMetadataStore;
  private readonly shareState: SharePartitionStore;
  private readonly txns: Transactions;
  private readonly brokerConfigStore: BrokerConfigs;
  private readonly acls: Acls;
  private readonly clientQuotaStore: ClientQuotas;
  private readonly scramStore: ScramCredentials;
  private readonly clusterIdentity: ClusterIdentityStore;
  /** Held from open to close: one broker per database file (db-lock.ts). */
  private readonly lock: DatabaseLock;
  /** The WAL checkpointer thread's owner (undefined with checkpointIntervalMs 0); public for tests. */
  readonly checkpointer: Checkpointer | undefined;

  constructor(
    readonly path: string,
    options: SqliteStorageOptions = {},
  ) {
    this.url = options.url ?? `sqlite://${path}`;
    const opened = openDatabase(path, options);
    ({ db: this.db, tx: this.tx, lock: this.lock, checkpointer: this.checkpointer } = opened);
    try {
      this.clusterIdentity = new ClusterIdentityStore(this.db);
      this.topics = new Topics(this.db, this.tx);
      this.producers = new Producers(this.db, this.tx);
      this.records = new Records(this.db, this.tx, this.topics, this.producers, new TailCache(options.tailCacheBytes));
      this.retention = new Retention(this.db, this.tx, this.topics, this.records);
      this.cleaner = new Cleaner(
        new SqliteCleanerLog(this.db, this.tx, this.topics, this.records, (freed) => this.reclaim(freed)),
      );
      this.groupOffsets = new GroupOffsets(this.db, this.tx);
      this.groupMembers = new GroupMetadataStore(this.db, this.tx);
      this.shareState = new SharePartitionStore(this.db);
      this.txns = new Transactions(this.db, this.tx, this.topics, this.records);
      this.activeProducerStates = new ActiveProducers(this.db, this.tx, this.topics, this.producers, this.records);
      this.brokerConfigStore = new BrokerConfigs(this.db, this.tx);
      this.acls = new Acls(this.db, this.tx);
      this.clientQuotaStore = new ClientQuotas(this.db, this.tx);
      this.scramStore = new ScramCredentials(this.db, this.tx);
    } catch (err) {
      throw failedStartup(opened, err, path);
    }
  }

  identity(wanted: Partial<ClusterIdentity>): ClusterIdentity {
    return this.guard(() => this.clusterIdentity.get(wanted));
  }

  listTopics(): TopicInfo[] {
    return this.topics.list();
  }
  totalPartitions(): number {
    return this.topics.totalPartitions();
  }
  topic(name: string): TopicInfo | undefined {
    return this.topics.get(name);
  }
  topicById(topicId: string): TopicInfo | undefined {
    return this.topics.getById(topicId);
  }
  createTopic(name: string, partitionCount: number, configs: Record<string, string>, topicId?: string): TopicInfo {
    return this.guard(() => this.topics.create(name, partitionCount, configs, topicId, Date.now()));
  }
  deleteTopic(name: string): boolean {
    return this.guard(() => {
      this.records.dropTopicTails(name);
      const partitionIds = this.topics.delete(name);
      if (!partitionIds) return false;
      this.producers.forget(partitionIds);
      return true;
    });
  }
  createTopics(topics: readonly NewTopic[]): (TopicInfo | StorageError)[] {
    return this.guard(() => this.topics.createMany(topics, Date.now()));
  }
  deleteTopics(names: readonly string[]): (boolean | StorageError)[] {
    return this.guard(() => {
      for (const name of names) this.records.dropTopicTails(name);
      const gone: number[] = [];
      const results = this.topics.deleteMany(names, gone);
      this.producers.forget(gone);
      return results;
    });
  }
  createPartitions(name: string, partitionCount: number): void {
    this.guard(() => this.topics.grow(name, partitionCount));
  }
  alterTopicConfigs(name: string, set: Record<string, string>, remove: readonly string[]): void {
    this.guard(() => this.topics.alterConfigs(name, set, remove));
  }
  brokerConfigs(resource: string): Record<string, string> {
    return this.brokerConfigStore.get(resource);
  }
  alterBrokerConfigs(resource: string, set: Record<string, string>, remove: readonly string[]): void {
    this.guard(() => this.brokerConfigStore.alter(resource, set, remove));
  }
  clientQuotas(): ClientQuotaEntry[] {
    return this.guard(() => this.clientQuotaStore.list());
  }
  alterClientQuotas(changes: readonly ClientQuotaChange[]): void {
    this.guard(() => this.clientQuotaStore.alter(changes));
  }

  scramCredential(user: string, mechanism: ScramMechanismName): ScramCredential | undefined {
    return this.guard(() => this.scramStore.get(user, mechanism));
  }
  scramCredentials(): UserScramCredentialInfo[] {
    return this.guard(() => this.scramStore.list());
  }
  alterScramCredentials(
    upserts: readonly UserScramCredential[],
    deletions: readonly { user: string; mechanism: ScramMechanismName }[],
  ): void {
    this.guard(() => this.scramStore.alter(upserts, deletions));
  }

  append(parts: readonly PartitionAppend[], nowMs: number): PartitionAppendResult[] {
    return this.guard(() => this.records.append(parts, nowMs));
  }
  read(
    topic: string,
    partition: number,
    fetchOffset: number,
    maxBytes: number,
    minOneBatch = true,
    readCommitted = false,
  ): ReadResult {
    return this.guard(() => this.records.read(topic, partition, fetchOffset, maxBytes, minOneBatch, readCommitted));
  }
  offsets(topic: string, partition: number): PartitionOffsets | undefined {
    return this.records.offsets(topic, partition);
  }
  partitionBytes(topic: string, partition: number): number | undefined {
    return this.guard(() => this.records.partitionSize(topic, partition));
  }
  batchForTimestamp(topic: string, partition: number, timestampMs: number): StoredBatch | undefined {
    return this.guard(() => this.records.batchForTimestamp(topic, partition, timestampMs));
  }
  batchWithMaxTimestamp(topic: string, partition: number): StoredBatch | undefined {
    return this.guard(() => this.records.batchWithMaxTimestamp(topic, partition));
  }
  deleteRecords(topic: string, partition: number, offset: number): DeleteRecordsResult {
    const { deletedBytes, ...result } = this.guard(() => this.records.deleteRecords(topic, partition, offset));
    if (deletedBytes > 0) this.reclaim(deletedBytes);
    return result;
  }
  enforceRetention(
    nowMs: number,
    defaults: RetentionDefaults,
    maxBatches: number,
    window?: RetentionWindow,
  ): RetentionResult {
    const result = this.guard(() => this.retention.enforce(nowMs, defaults, maxBatches, window));
    if (result.deletedBytes > 0) this.reclaim(result.deletedBytes);
    return result;
  }

  compactStep(nowMs: number, opts?: CleanerOptions): Promise<CompactionStepResult> {
    return this.cleaner.step(nowMs, opts).catch((err: unknown) => {
      throw asStorageError(err);
    });
  }
  cleanerState(
    topic: string,
    partition: number,
    nowMs: number,
    brokerDefaults?: Readonly<Record<string, string>>,
  ): CleanerState | undefined {
    return this.guard(() => this.cleaner.stateSync(topic, partition, nowMs, brokerDefaults));
  }

  /**
   * Gives freed pages back to the file system. The delete has committed by then: if this fails
   * (a full disk leaves no WAL room to move pages), the pages stay free inside the file, where
   * the next batches reuse them, so it is not an error of the request.
   */
  private reclaim(freedBytes: number): void {
    try {
      this.retention.reclaim(freedBytes);
    } catch {
      // see above; the free-space check counts those pages (reusableBytes)
    }
  }

  /** Bytes in free pages inside the file: new batches fill them before the file grows. */
  reusableBytes(): number {
    const pages = this.db.pragma('freelist_count', { simple: true }) as number;
    return pages * (this.db.pragma('page_size', { simple: true }) as number);
  }

  initProducerId(transactionalId: string | null, nowMs: number): { producerId: number; producerEpoch: number } {
    if (transactionalId === null) return this.guard(() => this.producers.initProducerId(nowMs));
    // A transactional id's producer id and epoch live in its txn row: one path for both calls.
    return this.guard(() => {
      const timeoutMs = this.txns.get(transactionalId)?.timeoutMs ?? DEFAULT_TXN_TIMEOUT_MS;
      const { producerId, producerEpoch } = this.txns.init(transactionalId, timeoutMs, nowMs);
      return { producerId, producerEpoch };
    });
  }

  // Transactions (transactions.ts; the partitions' side in records.ts)
  lastStableOffset(topic: string, partition: number): number | undefined {
    const entry = this.topics.partition(topic, partition);
    return entry && this.records.lastStableOffset(entry);
  }
  transactions(): TransactionInfo[] {
    return this.guard(() => this.txns.list());
  }
  transaction(transactionalId: string): TransactionInfo | undefined {
    return this.guard(() => this.txns.get(transactionalId));
  }
  initTransaction(transactionalId: string, timeoutMs: number, nowMs: number): TransactionInfo {
    return this.guard(() => this.txns.init(transactionalId, timeoutMs, nowMs));
  }
  addToTransaction(
    transactionalId: string,
    partitions: readonly TxnPartition[],
    groups: readonly string[],
    nowMs: number,
  ): TransactionInfo {
    return this.guard(() => this.txns.add(transactionalId, partitions, groups, nowMs));
  }
  commitTransactionalOffsets(
    transactionalId: string,
    groupId: string,
    offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[],
    nowMs: number,
  ): void {
    this.guard(() => this.txns.commitOffsets(transactionalId, groupId, offsets, nowMs));
  }
  activeProducers(topic: string, partition: number) {
    return this.guard(() => this.activeProducerStates.list(topic, partition));
  }
  writeTxnMarker(topic: string, partition: number, producerId: number, epoch: number, commit: boolean, nowMs: number) {
    return this.guard(() => this.activeProducerStates.writeMarker(topic, partition, producerId, epoch, commit, nowMs));
  }
  endTransaction(
    transactionalId: string,
    commit: boolean,
    nowMs: number,
    bump: EpochBump = 'none',
  ): EndTransactionResult {
    return this.guard(() => this.txns.endTransaction(transactionalId, commit, nowMs, bump));
  }
  pendingTransactionalOffsets(groupId: string): TxnPartition[] {
    return this.guard(() => this.txns.pendingOffsets(groupId));
  }
  deleteTransaction(transactionalId: string): boolean {
    return this.guard(() => this.txns.delete(transactionalId));
  }

  commitOffsets(groupId: string, offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[], nowMs: number): void {
    this.guard(() => this.groupOffsets.commit(groupId, offsets, nowMs));
  }
  fetchOffsets(groupId: string): CommittedOffset[] {
    return this.guard(() => this.groupOffsets.fetch(groupId));
  }
  deleteOffsets(groupId: string, partitions?: readonly { topic: string; partition: number }[]): void {
    this.guard(() => this.groupOffsets.delete(groupId, partitions));
  }
  offsetGroups(): string[] {
    return this.guard(() => this.groupOffsets.groups());
  }
  storeGroupMetadata(groupId: string, group: StoredGroup | null): void {
    this.guard(() => this.groupMembers.store(groupId, group));
  }
  groupMetadata(groupId: string): StoredGroup | undefined {
    return this.guard(() => this.groupMembers.load(groupId));
  }
  storeSharePartition(groupId: string, topicId: string, partition: number, state: StoredSharePartition | null): void {
    this.guard(() => this.shareState.store(groupId, topicId, partition, state));
  }
  sharePartition(groupId: string, topicId: string, partition: number): StoredSharePartition | undefined {
    return this.guard(() => this.shareState.load(groupId, topicId, partition));
  }
  sharePartitionsOfGroup(groupId: string): StoredSharePartitionOfGroup[] {
    return this.guard(() => this.shareState.ofGroup(groupId));
  }

  listAcls(): AclBinding[] {
    return this.guard(() => this.acls.list());
  }
  createAcls(bindings: readonly AclBinding[]): void {
    this.guard(() => this.acls.create(bindings));
  }
  deleteAcls(bindings: readonly AclBinding[]): number {
    return this.guard(() => this.acls.delete(bindings));
  }

  /** A copy of the database while serving (backup.ts). */
  backup(destPath: string): Promise<void> {
    return backupDatabase(this.db, destPath);
  }

  /** Checkpoints the WAL into the main file (so the .db alone is complete) and closes. */
  close(): void {
    if (!this.db.open) return;
    this.checkpointer?.stop();
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // A full disk can refuse the checkpoint (the file cannot grow): the WAL keeps the data,
      // and the next start replays it. A stop must not fail for that.
    }
    this.db.close();
    this.lock.release();
  }

  /** The connection, for tests and the CLI's diagnostics; never write through it. */
  get database(): Database.Database {
    return this.db;
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw asStorageError(err);
    }
  }
}
