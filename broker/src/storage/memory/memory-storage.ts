// The memory:// engine: everything in Maps, lost on exit. For tests and trying minnow out; it
// follows the same rules as SQLite (append-plan.ts, log-rules.ts) and passes the same contract.
import { bindingKey } from '../../protocol/acl';
import type { AclBinding } from '../../protocol/acl';
import { ErrorCode } from '../../protocol/error-codes';
import { randomUuid } from '../../protocol/uuid';
import { planAppend } from '../append-plan';
import { clientQuotaEntityFromKey, clientQuotaEntityKey } from '../client-quota-key';
import { deleteRecordsTarget, retentionLimits, unknownPartitionRead } from '../log-rules';
import { SweepProgress, sweepWindow } from '../retention-sweep';
import { StorageError } from '../storage';
import { eachOnItsOwn } from '../topic-batches';
import type {
  NewTopic,
  ClientQuotaChange,
  ClientQuotaEntry,
  ClusterIdentity,
  CommittedOffset,
  StoredGroup,
  DeleteRecordsResult,
  EndTransactionResult,
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
import { Cleaner } from '../compaction/cleaner';
import type { CleanerOptions, CleanerState, CompactionStepResult } from '../compaction/cleaner';
import { MemoryCleanerLog } from './memory-cleaner';
import { MemoryLog } from './memory-log';
import { MemoryTransactions } from './memory-txns';
import { DEFAULT_TXN_TIMEOUT_MS } from '../txn-rules';
import { isLogAppendTime } from '../topic-config';
import { unknownPartitionMarker } from '../active-producers';
import type { ActiveProducer } from '../active-producers';

interface MemoryTopic {
  info: TopicInfo;
  logs: MemoryLog[];
}

const offsetKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class MemoryStorage implements SyncStorage {
  private readonly topics = new Map<string, MemoryTopic>();
  private readonly topicsById = new Map<string, MemoryTopic>();
  private partitionTotal = 0;
  private nextProducerId = 1;
  private readonly txns = new MemoryTransactions({
    log: (topic, partition) => this.log(topic, partition),
    logAppendTime: (topic) => isLogAppendTime(this.topics.get(topic)?.info.configs ?? {}),
    allocateProducerId: () => this.nextProducerId++,
    commitOffsets: (groupId, offsets, nowMs) => this.commitOffsets(groupId, offsets, nowMs),
  });
  private readonly groups = new Map<string, Map<string, CommittedOffset>>();
  /** Classic group membership (storage/group-metadata.ts), copied in and out. */
  private readonly groupMembership = new Map<string, StoredGroup>();
  private identityValue: ClusterIdentity | undefined;
  private readonly brokerConfigValues = new Map<string, Record<string, string>>();
  /** By bindingKey: a binding is stored once. */
  private readonly acls = new Map<string, AclBinding>();
  /** By clientQuotaEntityKey(entity). */
  private readonly clientQuotaValues = new Map<string, Record<string, number>>();
  /** By `user NUL mechanism`. */
  private readonly scram = new Map<string, UserScramCredential>();

  private readonly cleaner = new Cleaner(
    new MemoryCleanerLog(
      () => this.topics.values(),
      (name) => this.topics.get(name),
    ),
  );

  constructor(readonly url = 'memory://') {}

  identity(wanted: Partial<ClusterIdentity>): ClusterIdentity {
    this.identityValue ??= { clusterId: wanted.clusterId ?? randomUuid(), nodeId: wanted.nodeId ?? 1 };
    return { ...this.identityValue };
  }

  totalPartitions(): number {
    return this.partitionTotal;
  }
  listTopics(): TopicInfo[] {
    return [...this.topics.values()]
      .map((t) => copyInfo(t.info))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  topic(name: string): TopicInfo | undefined {
    const t = this.topics.get(name);
    return t && copyInfo(t.info);
  }
  topicById(topicId: string): TopicInfo | undefined {
    const t = this.topicsById.get(topicId);
    return t && copyInfo(t.info);
  }

  createTopic(name: string, partitionCount: number, configs: Record<string, string>, topicId?: string): TopicInfo {
    if (this.topics.has(name))
      throw new StorageError(`topic "${name}" already exists; delete it first or pick another name`);
    checkPartitionCount(name, partitionCount);
    const id = topicId ?? randomUuid();
    const clash = this.topicsById.get(id);
    if (clash) throw new StorageError(`topic id ${id} is already used by topic "${clash.info.name}"`);
    const logs = Array.from({ length: partitionCount }, () => new MemoryLog());
    const topic: MemoryTopic = { info: { name, topicId: id, partitionCount, configs: { ...configs } }, logs };
    this.topics.set(name, topic);
    this.topicsById.set(id, topic);
    this.partitionTotal += partitionCount;
    return copyInfo(topic.info);
  }

  deleteTopic(name: string): boolean {
    const topic = this.topics.get(name);
    if (!topic) return false;
    this.topics.delete(name);
    this.topicsById.delete(topic.info.topicId);
    this.partitionTotal -= topic.logs.length;
    this.txns.forgetTopic(name);
    for (const offsets of this.groups.values()) {
      for (const [key, o] of offsets) if (o.topic === name) offsets.delete(key);
    }
    this.dropEmptyGroups();
    return true;
  }

  createTopics(topics: readonly NewTopic[]): (TopicInfo | StorageError)[] {
    return eachOnItsOwn(topics, (t) => this.createTopic(t.name, t.partitionCount, t.configs, t.topicId));
  }
  deleteTopics(names: readonly string[]): (boolean | StorageError)[] {
    return eachOnItsOwn(names, (name) => this.deleteTopic(name));
  }

  createPartitions(name: string, partitionCount: number): void {
    const t = this.mustGet(name);
    checkPartitionCount(name, partitionCount);
    if (partitionCount < t.info.partitionCount) {
      throw new StorageError(
        `topic "${name}" has ${t.info.partitionCount} partitions, cannot shrink to ${partitionCount}; Kafka only adds partitions`,
      );
    }
    this.partitionTotal += partitionCount - t.logs.length;
    while (t.logs.length < partitionCount) t.logs.push(new MemoryLog());
    t.info.partitionCount = partitionCount;
  }

  alterTopicConfigs(name: string, set: Record<string, string>, remove: readonly string[]): void {
    const t = this.mustGet(name);
    for (const k of remove) delete t.info.configs[k];
    Object.assign(t.info.configs, set);
  }

  brokerConfigs(resource: string): Record<string, string> {
    return { ...this.brokerConfigValues.get(resource) };
  }
  scramCredential(user: string, mechanism: ScramMechanismName): ScramCredential | undefined {
    const c = this.scram.get(`${user}\u0000${mechanism}`);
    return (
      c && {
        salt: Buffer.from(c.salt),
        iterations: c.iterations,
        storedKey: Buffer.from(c.storedKey),
        serverKey: Buffer.from(c.serverKey),
      }
    );
  }
  scramCredentials(): UserScramCredentialInfo[] {
    return [...this.scram.values()]
      .map(({ user, mechanism, iterations }) => ({ user, mechanism, iterations }))
      .sort((a, b) => (a.user < b.user ? -1 : a.user > b.user ? 1 : a.mechanism < b.mechanism ? -1 : 1));
  }
  alterScramCredentials(
    upserts: readonly UserScramCredential[],
    deletions: readonly { user: string; mechanism: ScramMechanismName }[],
  ): void {
    for (const d of deletions) this.scram.delete(`${d.user}\u0000${d.mechanism}`);
    for (const u of upserts)
      this.scram.set(`${u.user}\u0000${u.mechanism}`, {
        ...u,
        salt: Buffer.from(u.salt),
        storedKey: Buffer.from(u.storedKey),
        serverKey: Buffer.from(u.serverKey),
      });
  }
  alterBrokerConfigs(resource: string, set: Record<string, string>, remove: readonly string[]): void {
    const configs = { ...this.brokerConfigValues.get(resource) };
    for (const k of remove) delete configs[k];
    Object.assign(configs, set);
    this.brokerConfigValues.set(resource, configs);
  }

  clientQuotas(): ClientQuotaEntry[] {
    return [...this.clientQuotaValues].map(([key, values]) => ({
      entity: clientQuotaEntityFromKey(key),
      values: { ...values },
    }));
  }
  alterClientQuotas(changes: readonly ClientQuotaChange[]): void {
    for (const c of changes) {
      const key = clientQuotaEntityKey(c.entity);
      const values = { ...this.clientQuotaValues.get(key) };
      for (const k of c.remove) delete values[k];
      Object.assign(values, c.set);
      if (Object.keys(values).length > 0) this.clientQuotaValues.set(key, values);
      else this.clientQuotaValues.delete(key);
    }
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
    const topics = [...this.topics.values()].map((t) => ({ name: t.info.name, partitions: t.logs, t }));
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
    const logAppendTime = isLogAppendTime(this.topics.get(topic)!.info.configs);
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
  endTransaction(transactionalId: string, commit: boolean, nowMs: number, bumpEpoch = false): EndTransactionResult {
    return this.txns.endTransaction(transactionalId, commit, nowMs, bumpEpoch);
  }
  pendingTransactionalOffsets(groupId: string): TxnPartition[] {
    return this.txns.pendingOffsets(groupId);
  }
  deleteTransaction(transactionalId: string): boolean {
    return this.txns.delete(transactionalId);
  }

  commitOffsets(groupId: string, offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[], nowMs: number): void {
    let group = this.groups.get(groupId);
    if (!group) this.groups.set(groupId, (group = new Map()));
    for (const o of offsets) group.set(offsetKey(o.topic, o.partition), { ...o, commitTimestampMs: nowMs });
  }

  fetchOffsets(groupId: string): CommittedOffset[] {
    const list = [...(this.groups.get(groupId)?.values() ?? [])].map((o) => ({ ...o }));
    return list.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  }

  deleteOffsets(groupId: string, partitions?: readonly { topic: string; partition: number }[]): void {
    if (partitions === undefined) this.groups.delete(groupId);
    else for (const p of partitions) this.groups.get(groupId)?.delete(offsetKey(p.topic, p.partition));
    this.dropEmptyGroups();
  }

  offsetGroups(): string[] {
    return [...this.groups.keys()].sort();
  }
  storeGroupMetadata(groupId: string, group: StoredGroup | null): void {
    if (group === null) this.groupMembership.delete(groupId);
    else this.groupMembership.set(groupId, { ...group, members: group.members.map((m) => ({ ...m })) });
  }
  groupMetadata(groupId: string): StoredGroup | undefined {
    const g = this.groupMembership.get(groupId);
    return g && { ...g, members: g.members.map((m) => ({ ...m })) };
  }

  /** memory:// keeps nothing on disk, so there is nothing consistent to copy. */
  listAcls(): AclBinding[] {
    return [...this.acls.values()].map((b) => ({ ...b }));
  }
  createAcls(bindings: readonly AclBinding[]): void {
    for (const b of bindings) if (!this.acls.has(bindingKey(b))) this.acls.set(bindingKey(b), { ...b });
  }
  deleteAcls(bindings: readonly AclBinding[]): number {
    return bindings.reduce((n, b) => n + (this.acls.delete(bindingKey(b)) ? 1 : 0), 0);
  }

  async backup(destPath: string): Promise<void> {
    throw new StorageError(
      `memory:// has nothing to back up (asked to write "${destPath}"); run the broker with --storage sqlite://PATH to keep data`,
    );
  }

  close(): void {}

  private log(topic: string, partition: number): MemoryLog | undefined {
    return this.topics.get(topic)?.logs[partition];
  }

  private mustGet(name: string): MemoryTopic {
    const t = this.topics.get(name);
    if (!t) throw new StorageError(`topic "${name}" does not exist; create it first`);
    return t;
  }

  private dropEmptyGroups(): void {
    for (const [id, offsets] of this.groups) if (offsets.size === 0) this.groups.delete(id);
  }
}

function checkPartitionCount(name: string, n: number): void {
  if (!Number.isInteger(n) || n < 1)
    throw new StorageError(`topic "${name}": partition count ${n} must be a positive integer`);
}

function copyInfo(info: TopicInfo): TopicInfo {
  return { ...info, configs: { ...info.configs } };
}

function failed(errorCode: number, logStartOffset: number, errorMessage: string): PartitionAppendResult {
  return { errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset, errorMessage };
}
