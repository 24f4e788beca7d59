// The memory:// engine: everything in Maps, lost on exit. For tests and trying minnow out; it
// follows the same rules as SQLite (append-plan.ts, log-rules.ts) and passes the same contract.
import type { AclBinding } from '../../protocol/acl';
import { ErrorCode } from '../../protocol/error-codes';
import { randomUuid } from '../../protocol/uuid';
import { planAppend } from '../append-plan';
import { deleteRecordsTarget, retentionLimits, unknownPartitionRead } from '../log-rules';
import { SweepProgress, sweepWindow } from '../retention-sweep';
import { StorageError } from '../storage';
import { eachOnItsOwn } from '../topic-batches';
import type {
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
  NewTopic,
  UserScramCredential,
  UserScramCredentialInfo,
} from '../storage';
import type { ScramCredential, ScramMechanismName } from '../../sasl/scram-crypto';
import { Cleaner } from '../compaction/cleaner';
import type { CleanerOptions, CleanerState, CompactionStepResult } from '../compaction/cleaner';
import { MemoryCleanerLog } from './memory-cleaner';
import type { MemoryLog } from './memory-log';
import { MemoryAdmin } from './memory-admin';
import { MemoryGroups } from './memory-groups';
import { MemoryTopics } from './memory-topics';
import { MemoryTransactions } from './memory-txns';
import { DEFAULT_TXN_TIMEOUT_MS } from '../txn-rules';
import { isLogAppendTime } from '../topic-config';
import { unknownPartitionMarker } from '../active-producers';
import type { ActiveProducer } from '../active-producers';
import type { StoredSharePartition, StoredSharePartitionOfGroup } from '../share-store';

export class MemoryStorage implements SyncStorage {
  private readonly topics = new MemoryTopics();
  private readonly groups = new MemoryGroups();
  private readonly admin = new MemoryAdmin();
  private nextProducerId = 1;
  private readonly txns = new MemoryTransactions({
    log: (topic, partition) => this.log(topic, partition),
    logAppendTime: (topic) => isLogAppendTime(this.topics.stored(topic)?.info.configs ?? {}),
    allocateProducerId: () => this.nextProducerId++,
    commitOffsets: (groupId, offsets, nowMs) => this.groups.commitOffsets(groupId, offsets, nowMs),
  });
  private identityValue: ClusterIdentity | undefined;
  private readonly cleaner = new Cleaner(
    new MemoryCleanerLog(
      () => this.topics.all(),
      (name) => this.topics.stored(name),
    ),
  );

  constructor(readonly url = 'memory://') {}

  identity(wanted: Partial<ClusterIdentity>): ClusterIdentity {
    this.identityValue ??= { clusterId: wanted.clusterId ?? randomUuid(), nodeId: wanted.nodeId ?? 1 };
    return { ...this.identityValue };
  }

  totalPartitions(): number {
    return this.topics.totalPartitions();
  }
  listTopics(): TopicInfo[] {
    return this.topics.list();
  }
  topic(name: string): TopicInfo | undefined {
    return this.topics.get(name);
  }
  topicById(topicId: string): TopicInfo | undefined {
    return this.topics.getById(topicId);
  }
  createTopic(name: string, partitionCount: number, configs: Record<string, string>, topicId?: string): TopicInfo {
    return this.topics.create(name, partitionCount, configs, topicId);
  }
  deleteTopic(name: string): boolean {
    if (!this.topics.delete(name)) return false;
    this.txns.forgetTopic(name);
    this.groups.forgetTopic(name);
    return true;
  }
  createTopics(topics: readonly NewTopic[]): (TopicInfo | StorageError)[] {
    return eachOnItsOwn(topics, (t) => this.createTopic(t.name, t.partitionCount, t.configs, t.topicId));
  }
  deleteTopics(names: readonly string[]): (boolean | StorageError)[] {
    return eachOnItsOwn(names, (name) => this.deleteTopic(name));
  }
  createPartitions(name: string, partitionCount: number): void {
    this.topics.grow(name, partitionCount);
  }
  alterTopicConfigs(name: string, set: Record<string, string>, remove: readonly string[]): void {
    this.topics.alterConfigs(name, set, remove);
  }

  // Cluster administration (memory-admin.ts)
  brokerConfigs(resource: string): Record<string, string> {
    return this.admin.brokerConfigs(resource);
  }
  alterBrokerConfigs(resource: string, set: Record<string, string>, remove: readonly string[]): void {
    this.admin.alterBrokerConfigs(resource, set, remove);
  }
  clientQuotas(): ClientQuotaEntry[] {
    return this.admin.clientQuotas();
  }
  alterClientQuotas(changes: readonly ClientQuotaChange[]): void {
    this.admin.alterClientQuotas(changes);
  }
  scramCredential(user: string, mechanism: ScramMechanismName): ScramCredential | undefined {
    return this.admin.scramCredential(user, mechanism);
  }
  scramCredentials(): UserScramCredentialInfo[] {
    return this.admin.scramCredentials();
  }
  alterScramCredentials(
    upserts: readonly UserScramCredential[],
    deletions: readonly { user: string; mechanism: ScramMechanismName }[],
  ): void {
    this.admin.alterScramCredentials(upserts, deletions);
  }
  listAcls(): AclBinding[] {
    return this.admin.listAcls();
  }
  createAcls(bindings: readonly AclBinding[]): void {
    this.admin.createAcls(bindings);
  }
  deleteAcls(bindings: readonly AclBinding[]): number {
    return this.admin.deleteAcls(bindings);
  }

  /** Plans and applies each part in turn, so later parts for the same partition see earlier ones. */
  append(parts: readonly PartitionAppend[], nowMs: number): PartitionAppendResult[] {
    return parts.map((part) => {
      const log = this.log(part.topic, part.partition);
      if (!log)
        return failed(
          ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          -1,
          `unknown topic or partition ${part.topic}-${part.partition}`,
        );
      const plan = planAppend(
        log.highWatermark,
        (producerId) => log.producers.get(producerId),
        part,
        nowMs,
        (header) => this.txns.check(header, part.topic, part.partition, log),
      );
      if (!('rows' in plan)) return failed(plan.errorCode, log.logStartOffset, plan.errorMessage);
      log.append(plan.rows, plan.highWatermark);
      for (const [producerId, state] of plan.producers) log.producers.set(producerId, state);
      for (const [producerId, first] of plan.txnFirstOffsets)
        if (!log.openTxns.has(producerId)) log.openTxns.set(producerId, first);
      return {
        errorCode: ErrorCode.NONE,
        baseOffset: plan.baseOffset,
        logAppendTimeMs: plan.logAppendTimeMs,
        logStartOffset: log.logStartOffset,
        errorMessage: null,
      };
    });
  }

  read(
    topic: string,
    partition: number,
    fetchOffset: number,
    maxBytes: number,
    minOneBatch = true,
    readCommitted = false,
  ): ReadResult {
    return (
      this.log(topic, partition)?.read(fetchOffset, maxBytes, minOneBatch, readCommitted) ?? unknownPartitionRead()
    );
  }
  offsets(topic: string, partition: number): PartitionOffsets | undefined {
    const log = this.log(topic, partition);
    return log && { logStartOffset: log.logStartOffset, highWatermark: log.highWatermark };
  }
  partitionBytes(topic: string, partition: number): number | undefined {
    return this.log(topic, partition)?.bytes;
  }
  batchForTimestamp(topic: string, partition: number, timestampMs: number): StoredBatch | undefined {
    return this.log(topic, partition)?.batchForTimestamp(timestampMs);
  }
  batchWithMaxTimestamp(topic: string, partition: number): StoredBatch | undefined {
    return this.log(topic, partition)?.batchWithMaxTimestamp();
  }

  deleteRecords(topic: string, partition: number, offset: number): DeleteRecordsResult {
    const log = this.log(topic, partition);
    if (!log) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, logStartOffset: -1, highWatermark: -1 };
    const target = deleteRecordsTarget(log, offset);
    if (target.errorCode === ErrorCode.NONE && target.logStartOffset > log.logStartOffset) {
      log.deleteBelow(target.logStartOffset, target.logStartOffset);
    }
    return { errorCode: target.errorCode, logStartOffset: log.logStartOffset, highWatermark: log.highWatermark };
  }

  enforceRetention(
    nowMs: number,
    defaults: RetentionDefaults,
    maxBatches: number,
    window?: RetentionWindow,
  ): RetentionResult {
    const result: RetentionResult = { deletedBatches: 0, deletedBytes: 0 };
    const topics = [...this.topics.all()].map((t) => ({ name: t.info.name, partitions: t.logs, t }));
    const { visit, more } = sweepWindow(topics, window);
    const progress = new SweepProgress(window);
    for (const { topic, partition } of visit) {
      const budget = maxBatches - result.deletedBatches;
      if (budget <= 0) {
        progress.stop();
        break;
      }
      const limits = retentionLimits(topic.t.info.configs, defaults, nowMs);
      const deleted = topic.partitions[partition]!.enforceRetention(limits, budget);
      result.deletedBatches += deleted.batches;
      result.deletedBytes += deleted.bytes;
      if (deleted.batches >= budget) {
        progress.stop(); // the budget ran out here: this partition may hold more
        break;
      }
      progress.finished(topic.name, partition);
    }
    return progress.result(result, more);
  }

  compactStep(nowMs: number, opts?: CleanerOptions): Promise<CompactionStepResult> {
    return this.cleaner.step(nowMs, opts);
  }
  cleanerState(
    topic: string,
    partition: number,
    nowMs: number,
    brokerDefaults?: Readonly<Record<string, string>>,
  ): CleanerState | undefined {
    return this.cleaner.stateSync(topic, partition, nowMs, brokerDefaults);
  }

  activeProducers(topic: string, partition: number): ActiveProducer[] | undefined {
    return this.log(topic, partition)?.activeProducers();
  }
  writeTxnMarker(topic: string, partition: number, producerId: number, epoch: number, commit: boolean, nowMs: number) {
    const log = this.log(topic, partition);
    if (!log) return unknownPartitionMarker(topic, partition);
    const logAppendTime = isLogAppendTime(this.topics.stored(topic)!.info.configs);
    return log.writeMarker(producerId, epoch, commit, nowMs, logAppendTime);
  }

  initProducerId(transactionalId: string | null, nowMs: number): { producerId: number; producerEpoch: number } {
    if (transactionalId === null) return { producerId: this.nextProducerId++, producerEpoch: 0 };
    const timeoutMs = this.txns.get(transactionalId)?.timeoutMs ?? DEFAULT_TXN_TIMEOUT_MS;
    const { producerId, producerEpoch } = this.txns.init(transactionalId, timeoutMs, nowMs);
    return { producerId, producerEpoch };
  }

  // Transactions (memory-txns.ts)
  lastStableOffset(topic: string, partition: number): number | undefined {
    return this.log(topic, partition)?.lastStableOffset();
  }
  transactions(): TransactionInfo[] {
    return this.txns.list();
  }
  transaction(transactionalId: string): TransactionInfo | undefined {
    return this.txns.get(transactionalId);
  }
  initTransaction(transactionalId: string, timeoutMs: number, nowMs: number): TransactionInfo {
    return this.txns.init(transactionalId, timeoutMs, nowMs);
  }
  addToTransaction(
    transactionalId: string,
    partitions: readonly TxnPartition[],
    groups: readonly string[],
    nowMs: number,
  ): TransactionInfo {
    return this.txns.add(transactionalId, partitions, groups, nowMs);
  }
  commitTransactionalOffsets(
    transactionalId: string,
    groupId: string,
    offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[],
    _nowMs: number,
  ): void {
    this.txns.commitOffsets(transactionalId, groupId, offsets);
  }
  endTransaction(
    transactionalId: string,
    commit: boolean,
    nowMs: number,
    bump: EpochBump = 'none',
  ): EndTransactionResult {
    return this.txns.endTransaction(transactionalId, commit, nowMs, bump);
  }
  pendingTransactionalOffsets(groupId: string): TxnPartition[] {
    return this.txns.pendingOffsets(groupId);
  }
  deleteTransaction(transactionalId: string): boolean {
    return this.txns.delete(transactionalId);
  }

  // Consumer groups (memory-groups.ts)
  commitOffsets(groupId: string, offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[], nowMs: number): void {
    this.groups.commitOffsets(groupId, offsets, nowMs);
  }
  fetchOffsets(groupId: string): CommittedOffset[] {
    return this.groups.fetchOffsets(groupId);
  }
  deleteOffsets(groupId: string, partitions?: readonly { topic: string; partition: number }[]): void {
    this.groups.deleteOffsets(groupId, partitions);
  }
  offsetGroups(): string[] {
    return this.groups.offsetGroups();
  }
  storeGroupMetadata(groupId: string, group: StoredGroup | null): void {
    this.groups.storeGroupMetadata(groupId, group);
  }
  groupMetadata(groupId: string): StoredGroup | undefined {
    return this.groups.groupMetadata(groupId);
  }
  storeSharePartition(groupId: string, topicId: string, partition: number, state: StoredSharePartition | null): void {
    this.groups.storeSharePartition(groupId, topicId, partition, state);
  }
  sharePartition(groupId: string, topicId: string, partition: number): StoredSharePartition | undefined {
    return this.groups.sharePartition(groupId, topicId, partition);
  }
  sharePartitionsOfGroup(groupId: string): StoredSharePartitionOfGroup[] {
    return this.groups.sharePartitionsOfGroup(groupId);
  }

  /** memory:// keeps nothing on disk, so there is nothing consistent to copy. */
  async backup(destPath: string): Promise<void> {
    throw new StorageError(
      `memory:// has nothing to back up (asked to write "${destPath}"); run the broker with --storage sqlite://PATH to keep data`,
    );
  }

  close(): void {}

  private log(topic: string, partition: number): MemoryLog | undefined {
    return this.topics.log(topic, partition);
  }
}

function failed(errorCode: number, logStartOffset: number, errorMessage: string): PartitionAppendResult {
  return { errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset, errorMessage };
}
