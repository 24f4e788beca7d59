// Numbered schema migrations, applied in order, each once, in one transaction (schema.ts). They are
// TypeScript string constants rather than .sql files so `tsc` ships them in dist/ with no copy step.
// Never edit a released migration: add the next number.

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const initial = `
-- One row: the identity clients cache (docs/design.md: stable for a database file).
CREATE TABLE cluster (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  cluster_id TEXT    NOT NULL,
  node_id    INTEGER NOT NULL
);

CREATE TABLE topic (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: caches key on it
  name        TEXT    NOT NULL UNIQUE,
  topic_uuid  TEXT    NOT NULL UNIQUE,  -- Kafka's base64url form
  partitions  INTEGER NOT NULL CHECK (partitions > 0),
  created_ms  INTEGER NOT NULL
);

-- Only the overrides; defaults live in topic-config.ts.
CREATE TABLE topic_config (
  topic_id INTEGER NOT NULL REFERENCES topic (id),
  name     TEXT    NOT NULL,
  value    TEXT    NOT NULL,
  PRIMARY KEY (topic_id, name)
) WITHOUT ROWID;

CREATE TABLE partition (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: caches key on it
  topic_id         INTEGER NOT NULL REFERENCES topic (id),
  partition_index  INTEGER NOT NULL,
  log_start_offset INTEGER NOT NULL DEFAULT 0,
  high_watermark   INTEGER NOT NULL DEFAULT 0,  -- one past the last offset
  UNIQUE (topic_id, partition_index)
);

-- One row per Kafka record batch, stored exactly as produced (compressed or not). A rowid table
-- (not WITHOUT ROWID): its rows hold large blobs, which a WITHOUT ROWID b-tree would keep in the
-- index pages. data is the last column so queries that read only sizes never touch overflow pages.
CREATE TABLE record_batch (
  partition_id   INTEGER NOT NULL REFERENCES partition (id),
  base_offset    INTEGER NOT NULL,
  last_offset    INTEGER NOT NULL,
  record_count   INTEGER NOT NULL,
  max_timestamp  INTEGER NOT NULL,
  producer_id    INTEGER NOT NULL,
  producer_epoch INTEGER NOT NULL,
  base_sequence  INTEGER NOT NULL,
  size           INTEGER NOT NULL,
  data           BLOB    NOT NULL,
  PRIMARY KEY (partition_id, base_offset)
);

-- Every allocated producer id (transactional_id NULL for plain idempotent producers).
-- AUTOINCREMENT: an id is never handed out twice, even if old rows are pruned.
CREATE TABLE producer (
  producer_id      INTEGER PRIMARY KEY AUTOINCREMENT,
  transactional_id TEXT UNIQUE,
  epoch            INTEGER NOT NULL,
  updated_ms       INTEGER NOT NULL
);

-- Idempotence state per producer and partition: the epoch and the last 5 batches, packed as
-- 16 bytes each (first sequence int32, last sequence int32, base offset int64, big-endian).
-- last_offset (of the newest batch) lets retention drop producers whose batches are all gone,
-- as Kafka does when the log start offset passes them.
CREATE TABLE producer_partition (
  partition_id     INTEGER NOT NULL REFERENCES partition (id),
  producer_id      INTEGER NOT NULL,
  epoch            INTEGER NOT NULL,
  last_offset      INTEGER NOT NULL,
  batches          BLOB    NOT NULL,
  PRIMARY KEY (partition_id, producer_id)
) WITHOUT ROWID;

-- Keyed by topic name, as OffsetCommit is; topic deletion removes a topic's rows.
CREATE TABLE group_offset (
  group_id         TEXT    NOT NULL,
  topic            TEXT    NOT NULL,
  partition_index  INTEGER NOT NULL,
  committed_offset INTEGER NOT NULL,
  leader_epoch     INTEGER NOT NULL,
  metadata         TEXT,
  commit_ms        INTEGER NOT NULL,
  PRIMARY KEY (group_id, topic, partition_index)
) WITHOUT ROWID;
CREATE INDEX group_offset_topic ON group_offset (topic);
`;

// Dynamic broker configs (AlterConfigs on a BROKER resource, KIP-226): resource is the node id, or
// '' for the cluster-wide default. Kafka keeps them in its metadata log; here they survive restarts.
const brokerConfig = `
CREATE TABLE broker_config (
  resource TEXT NOT NULL,
  name     TEXT NOT NULL,
  value    TEXT NOT NULL,
  PRIMARY KEY (resource, name)
) WITHOUT ROWID;
`;

// ACL bindings (Kafka's AclBinding; names as Kafka spells its enums, e.g. TOPIC, PREFIXED, READ,
// ALLOW). 3 is SCRAM credentials, on another branch: numbers are assigned per feature so they merge.
const acl = `
CREATE TABLE acl (
  resource_type   TEXT NOT NULL,
  resource_name   TEXT NOT NULL,
  pattern_type    TEXT NOT NULL CHECK (pattern_type IN ('LITERAL', 'PREFIXED')),
  principal       TEXT NOT NULL,
  host            TEXT NOT NULL,
  operation       TEXT NOT NULL,
  permission_type TEXT NOT NULL CHECK (permission_type IN ('ALLOW', 'DENY')),
  PRIMARY KEY (resource_type, resource_name, pattern_type, principal, host, operation, permission_type)
) WITHOUT ROWID;
`;

// Client quotas (KIP-546; Kafka keeps them in its metadata log as ClientQuotaRecord). entity is
// the canonical JSON of the entity's [type, name] pairs sorted by type (name null: the default
// entity), written and read only by storage/client-quota-key.ts.
const clientQuota = `
CREATE TABLE client_quota (
  entity TEXT NOT NULL,
  key    TEXT NOT NULL,
  value  REAL NOT NULL,
  PRIMARY KEY (entity, key)
) WITHOUT ROWID;
`;

// SASL/SCRAM credentials per (user, mechanism), as Kafka's UserScramCredentialRecord holds them:
// salt, iterations, StoredKey and ServerKey (RFC 5802), never the password.
const scramCredentials = `
CREATE TABLE scram_credential (
  user_name  TEXT    NOT NULL,
  mechanism  TEXT    NOT NULL CHECK (mechanism IN ('SCRAM-SHA-256', 'SCRAM-SHA-512')),
  salt       BLOB    NOT NULL,
  iterations INTEGER NOT NULL,
  stored_key BLOB    NOT NULL,
  server_key BLOB    NOT NULL,
  PRIMARY KEY (user_name, mechanism)
) WITHOUT ROWID;
`;

// Transactions (KIP-98, docs/transactions.md): the coordinator's state (Kafka's __transaction_state)
// and each partition's open and aborted transactions (Kafka's producer snapshots and .txnindex).
const transactions = `
CREATE TABLE txn (
  transactional_id  TEXT    PRIMARY KEY,
  producer_id       INTEGER NOT NULL,
  producer_epoch    INTEGER NOT NULL,
  last_producer_id  INTEGER NOT NULL DEFAULT -1,
  last_epoch        INTEGER NOT NULL DEFAULT -1,
  state             TEXT    NOT NULL CHECK (state IN ('Empty', 'Ongoing', 'CompleteCommit', 'CompleteAbort')),
  timeout_ms        INTEGER NOT NULL,
  started_ms        INTEGER NOT NULL DEFAULT -1,
  updated_ms        INTEGER NOT NULL
) WITHOUT ROWID;
CREATE UNIQUE INDEX txn_producer ON txn (producer_id);

-- Partitions added to the ongoing transaction (AddPartitionsToTxn): markers go to exactly these.
CREATE TABLE txn_partition (
  transactional_id TEXT    NOT NULL REFERENCES txn (transactional_id) ON DELETE CASCADE,
  partition_id     INTEGER NOT NULL REFERENCES partition (id),
  PRIMARY KEY (transactional_id, partition_id)
) WITHOUT ROWID;

-- Groups added with AddOffsetsToTxn, and their offsets pending until the transaction commits.
CREATE TABLE txn_group (
  transactional_id TEXT NOT NULL REFERENCES txn (transactional_id) ON DELETE CASCADE,
  group_id         TEXT NOT NULL,
  PRIMARY KEY (transactional_id, group_id)
) WITHOUT ROWID;
CREATE TABLE txn_offset (
  transactional_id TEXT    NOT NULL REFERENCES txn (transactional_id) ON DELETE CASCADE,
  group_id         TEXT    NOT NULL,
  topic            TEXT    NOT NULL,
  partition_index  INTEGER NOT NULL,
  committed_offset INTEGER NOT NULL,
  leader_epoch     INTEGER NOT NULL,
  metadata         TEXT,
  commit_ms        INTEGER NOT NULL,
  PRIMARY KEY (transactional_id, group_id, topic, partition_index)
) WITHOUT ROWID;
CREATE INDEX txn_offset_group ON txn_offset (group_id);

-- The first offset each ongoing transaction wrote to a partition: the last stable offset is the
-- smallest of them (else the high watermark).
CREATE TABLE open_txn (
  partition_id INTEGER NOT NULL REFERENCES partition (id),
  producer_id  INTEGER NOT NULL,
  first_offset INTEGER NOT NULL,
  PRIMARY KEY (partition_id, producer_id)
) WITHOUT ROWID;

-- Aborted transactions per partition (Kafka's .txnindex): read_committed fetches return the ranges
-- that overlap what they return. last_offset is the ABORT marker's offset.
CREATE TABLE aborted_txn (
  partition_id INTEGER NOT NULL REFERENCES partition (id),
  producer_id  INTEGER NOT NULL,
  first_offset INTEGER NOT NULL,
  last_offset  INTEGER NOT NULL,
  PRIMARY KEY (partition_id, last_offset)
) WITHOUT ROWID;
`;

// Compaction (issue 17, docs/compaction.md): each compacted partition's last pass (its clean
// offset: where the next pass's dirty range starts), and per batch the time from which its
// tombstones or marker may go (KIP-534's delete horizon, kept in a column rather than in the batch
// so the stored bytes stay as produced). The column lands after data: only the cleaner reads it,
// together with data, so size-only queries still never touch overflow pages.
const compaction = `
ALTER TABLE record_batch ADD COLUMN delete_horizon_ms INTEGER NOT NULL DEFAULT -1;
CREATE TABLE log_cleaner (
  partition_id    INTEGER PRIMARY KEY REFERENCES partition (id),
  clean_offset    INTEGER NOT NULL,
  last_cleaned_ms INTEGER NOT NULL,
  bytes_before    INTEGER NOT NULL,
  bytes_after     INTEGER NOT NULL,
  -- The earliest delete horizon the last pass left (-1: none): a pass is due then even without dirt.
  next_horizon_ms INTEGER NOT NULL DEFAULT -1
);
`;

// Classic group membership at the end of each rebalance (Kafka's GroupMetadataValue; storage/
// group-metadata.ts), so a restart is invisible to a stable group. Written whole by each rebalance.
const groupMetadata = `
CREATE TABLE group_metadata (
  group_id      TEXT    PRIMARY KEY,
  protocol_type TEXT,
  generation    INTEGER NOT NULL,
  protocol_name TEXT,
  leader_id     TEXT,
  updated_ms    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE group_member (
  group_id             TEXT    NOT NULL REFERENCES group_metadata (group_id),
  member_id            TEXT    NOT NULL,
  join_order           INTEGER NOT NULL,
  group_instance_id    TEXT,
  client_id            TEXT    NOT NULL,
  client_host          TEXT    NOT NULL,
  rebalance_timeout_ms INTEGER NOT NULL,
  session_timeout_ms   INTEGER NOT NULL,
  subscription         BLOB    NOT NULL,
  assignment           BLOB    NOT NULL,
  PRIMARY KEY (group_id, member_id)
) WITHOUT ROWID;
`;

// Share groups' delivery state per share-partition (KIP-932; storage/share-store.ts).
const sharePartitionState = `
CREATE TABLE share_partition_state (
  group_id     TEXT    NOT NULL,
  topic_id     TEXT    NOT NULL,
  partition    INTEGER NOT NULL,
  start_offset INTEGER NOT NULL,
  end_offset   INTEGER NOT NULL,
  records      TEXT    NOT NULL,
  PRIMARY KEY (group_id, topic_id, partition)
) WITHOUT ROWID;
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial', sql: initial },
  { version: 2, name: 'broker_config', sql: brokerConfig },
  { version: 3, name: 'scram_credential', sql: scramCredentials },
  { version: 4, name: 'acl', sql: acl },
  { version: 5, name: 'client_quota', sql: clientQuota },
  { version: 6, name: 'transactions', sql: transactions },
  { version: 7, name: 'compaction', sql: compaction },
  { version: 8, name: 'group_metadata', sql: groupMetadata },
  { version: 9, name: 'share_partition_state', sql: sharePartitionState },
];
