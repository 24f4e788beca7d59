// The one storage interface every engine implements (sqlite://, memory://, postgres://).
// The server uses `AsyncStorage` (every call returns a Promise: a network database cannot answer
// synchronously, issue 18 / docs/postgres.md). The in-process engines implement `SyncStorage`, the
// same calls answered synchronously, and are handed to the server through `promised()`
// (sync-adapter.ts): their promise is already settled when returned, so the SQLite path keeps its
// group commit and pays a microtask per call. Waiting (fetch max_wait, group commit) belongs to
// the server. Kafka outcomes come back as error codes; engines throw only StorageError (I/O, corruption).
// Offsets and timestamps are JS numbers here (exact up to 2^53); the protocol layer uses bigint.
// The interface is composed of one part per concern, each in its own file: topic-store.ts,
// record-store.ts, log-cleanup-store.ts, transaction-store.ts, group-store.ts, admin-store.ts.
import type { AclStore, BrokerConfigStore, ClientQuotaStore, ScramStore } from './admin-store';
import type { GroupStore } from './group-store';
import type { ShareStore } from './share-store';
import type { LogCleanupStore } from './log-cleanup-store';
import type { RecordStore } from './record-store';
import type { TopicStore } from './topic-store';
import type { ProducerStore, TransactionStore } from './transaction-store';

export { StorageError } from './storage-error';
export type { StoredGroup, StoredGroupMember } from './group-metadata';
export type { CleanerOptions, CleanerState, CompactionStepResult } from './compaction/cleaner-types';
export type { NewTopic, TopicInfo, TopicStore } from './topic-store';
export type {
  AbortedTransaction,
  DeleteRecordsResult,
  PartitionAppend,
  PartitionAppendResult,
  PartitionOffsets,
  ReadResult,
  RecordStore,
  StoredBatch,
} from './record-store';
export type {
  LogCleanupStore,
  RetentionCursor,
  RetentionDefaults,
  RetentionResult,
  RetentionWindow,
} from './log-cleanup-store';
export { RETENTION_SWEEP_START } from './log-cleanup-store';
export type { CommittedOffset, GroupStore } from './group-store';
export type { ShareStore, StoredSharePartition, StoredSharePartitionOfGroup } from './share-store';
export type {
  EndTransactionResult,
  EpochBump,
  ProducerStore,
  TransactionInfo,
  TransactionState,
  TransactionStore,
  TxnPartition,
} from './transaction-store';
export type {
  AclStore,
  BrokerConfigStore,
  ClientQuotaChange,
  ClientQuotaEntity,
  ClientQuotaEntry,
  ClientQuotaStore,
  ScramStore,
  UserScramCredential,
  UserScramCredentialInfo,
} from './admin-store';

export interface ClusterIdentity {
  clusterId: string;
  nodeId: number;
}

export interface SyncStorage
  extends
    TopicStore,
    RecordStore,
    LogCleanupStore,
    ProducerStore,
    TransactionStore,
    GroupStore,
    ShareStore,
    BrokerConfigStore,
    ClientQuotaStore,
    ScramStore,
    AclStore {
  readonly url: string;

  /** Stored on first open so clients keep working after restarts and moves; `wanted` applies only then. */
  identity(wanted: Partial<ClusterIdentity>): ClusterIdentity;

  /** A consistent copy of the whole state into a new file (refused if it exists), while serving. */
  backup(destPath: string): Promise<void>;
  close(): void;
}

/** `T`'s methods, each returning a Promise of what it returned (a Promise stays one Promise). */
export type Promised<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K];
};

/** The interface the server, coordinators and tools use; postgres:// implements it directly. */
export type AsyncStorage = Promised<SyncStorage>;

/** What the broker, coordinators and tools hold (issue 18): every call awaited. */
export type Storage = AsyncStorage;
