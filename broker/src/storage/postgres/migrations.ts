// The postgres:// engine's numbered schema migrations (docs/postgres.md), applied in order, each
// once and each in its own transaction (schema.ts). TypeScript string constants so `tsc` ships them.
// Never edit a released migration: add the next number. Migration 1 is the whole schema the
// sqlite:// engine has after its migrations 1-7, with bigint for offsets, timestamps and ids and
// bytea for batches; later features (several brokers, ...) add their own numbers.

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

const initial = `
-- One row: the identity clients cache (docs/design.md: stable for a database).
CREATE TABLE cluster (
  id         integer PRIMARY KEY CHECK (id = 1),
  cluster_id text    NOT NULL,
  node_id    integer NOT NULL
);

CREATE TABLE topic (
  id         bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- never reused: caches key on it
  name       text    NOT NULL UNIQUE,
  topic_uuid text    NOT NULL UNIQUE,  -- Kafka's base64url form
  partitions integer NOT NULL CHECK (partitions > 0),
  created_ms bigint  NOT NULL
);

-- Only the overrides; defaults live in topic-config.ts.
CREATE TABLE topic_config (
  topic_id bigint NOT NULL REFERENCES topic (id) ON DELETE CASCADE,
  name     text   NOT NULL,
  value    text   NOT NULL,
  PRIMARY KEY (topic_id, name)
);

-- The row an append locks (SELECT ... FOR UPDATE, in id order): offsets are assigned under it.
CREATE TABLE partition (
  id               bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- never reused
  topic_id         bigint  NOT NULL REFERENCES topic (id) ON DELETE CASCADE,
  partition_index  integer NOT NULL,
  log_start_offset bigint  NOT NULL DEFAULT 0,
  high_watermark   bigint  NOT NULL DEFAULT 0,  -- one past the last offset
  UNIQUE (topic_id, partition_index)
);

-- One row per Kafka record batch, stored exactly as produced (compressed or not). STORAGE
-- EXTERNAL: out of line, never pglz-compressed (producers compress already). delete_horizon_ms:
-- the cleaner's KIP-534 delete horizon, kept outside the batch so the bytes stay as produced.
CREATE TABLE record_batch (
  partition_id      bigint   NOT NULL REFERENCES partition (id) ON DELETE CASCADE,
  base_offset       bigint   NOT NULL,
  last_offset       bigint   NOT NULL,
  record_count      integer  NOT NULL,
  max_timestamp     bigint   NOT NULL,
  producer_id       bigint   NOT NULL,
  producer_epoch    integer  NOT NULL,
  base_sequence     integer  NOT NULL,
  size              integer  NOT NULL,
  delete_horizon_ms bigint   NOT NULL DEFAULT -1,
  data              bytea    NOT NULL,
  PRIMARY KEY (partition_id, base_offset)
);
ALTER TABLE record_batch ALTER COLUMN data SET STORAGE EXTERNAL;

-- Producer ids come from a sequence: never handed out twice, whichever broker asks.
CREATE SEQUENCE producer_id_seq AS bigint START 1;

-- Every allocated producer id (transactional_id NULL for plain idempotent producers).
CREATE TABLE producer (
  producer_id      bigint  PRIMARY KEY DEFAULT nextval('producer_id_seq'),
  transactional_id text    UNIQUE,
  epoch            integer NOT NULL,
  updated_ms       bigint  NOT NULL
);
ALTER SEQUENCE producer_id_seq OWNED BY producer.producer_id;

-- Idempotence state per producer and partition: the epoch and the last 5 batches, packed as
-- 16 bytes each (first sequence int32, last sequence int32, base offset int64, big-endian), as
-- sqlite's. last_offset (of the newest batch) lets retention drop producers whose batches are gone.
CREATE TABLE producer_partition (
  partition_id bigint  NOT NULL REFERENCES partition (id) ON DELETE CASCADE,
  producer_id  bigint  NOT NULL,
  epoch        integer NOT NULL,
  last_offset  bigint  NOT NULL,
  batches      bytea   NOT NULL,
  PRIMARY KEY (partition_id, producer_id)
);

-- Keyed by topic name, as OffsetCommit is; topic deletion removes a topic's rows.
CREATE TABLE group_offset (
  group_id         text    NOT NULL,
  topic            text    NOT NULL,
  partition_index  integer NOT NULL,
  committed_offset bigint  NOT NULL,
  leader_epoch     integer NOT NULL,
  metadata         text,
  commit_ms        bigint  NOT NULL,
  PRIMARY KEY (group_id, topic, partition_index)
);
CREATE INDEX group_offset_topic ON group_offset (topic);

-- Dynamic broker configs (KIP-226): resource is the node id, or '' for the cluster-wide default.
CREATE TABLE broker_config (
  resource text NOT NULL,
  name     text NOT NULL,
  value    text NOT NULL,
  PRIMARY KEY (resource, name)
);

-- SASL/SCRAM credentials per (user, mechanism) as Kafka's UserScramCredentialRecord: never a password.
CREATE TABLE scram_credential (
  user_name  text    NOT NULL,
  mechanism  text    NOT NULL CHECK (mechanism IN ('SCRAM-SHA-256', 'SCRAM-SHA-512')),
  salt       bytea   NOT NULL,
  iterations integer NOT NULL,
  stored_key bytea   NOT NULL,
  server_key bytea   NOT NULL,
  PRIMARY KEY (user_name, mechanism)
);

-- ACL bindings (Kafka's AclBinding; enums spelled as Kafka does: TOPIC, PREFIXED, READ, ALLOW).
CREATE TABLE acl (
  resource_type   text NOT NULL,
  resource_name   text NOT NULL,
  pattern_type    text NOT NULL CHECK (pattern_type IN ('LITERAL', 'PREFIXED')),
  principal       text NOT NULL,
  host            text NOT NULL,
  operation       text NOT NULL,
  permission_type text NOT NULL CHECK (permission_type IN ('ALLOW', 'DENY')),
  PRIMARY KEY (resource_type, resource_name, pattern_type, principal, host, operation, permission_type)
);

-- Client quotas (KIP-546): entity is the canonical JSON written by storage/client-quota-key.ts.
CREATE TABLE client_quota (
  entity text             NOT NULL,
  key    text             NOT NULL,
  value  double precision NOT NULL,
  PRIMARY KEY (entity, key)
);

-- Transactions (KIP-98, docs/transactions.md): the coordinator's state (Kafka's __transaction_state).
CREATE TABLE txn (
  transactional_id text    PRIMARY KEY,
  producer_id      bigint  NOT NULL UNIQUE,
  producer_epoch   integer NOT NULL,
  last_producer_id bigint  NOT NULL DEFAULT -1,
  last_epoch       integer NOT NULL DEFAULT -1,
  state            text    NOT NULL CHECK (state IN ('Empty', 'Ongoing', 'CompleteCommit', 'CompleteAbort')),
  timeout_ms       bigint  NOT NULL,
  started_ms       bigint  NOT NULL DEFAULT -1,
  updated_ms       bigint  NOT NULL
);

-- Partitions added to the ongoing transaction (AddPartitionsToTxn): markers go to exactly these.
CREATE TABLE txn_partition (
  transactional_id text   NOT NULL REFERENCES txn (transactional_id) ON DELETE CASCADE,
  partition_id     bigint NOT NULL REFERENCES partition (id) ON DELETE CASCADE,
  PRIMARY KEY (transactional_id, partition_id)
);

-- Groups added with AddOffsetsToTxn, and their offsets pending until the transaction commits.
CREATE TABLE txn_group (
  transactional_id text NOT NULL REFERENCES txn (transactional_id) ON DELETE CASCADE,
  group_id         text NOT NULL,
  PRIMARY KEY (transactional_id, group_id)
);
CREATE TABLE txn_offset (
  transactional_id text    NOT NULL REFERENCES txn (transactional_id) ON DELETE CASCADE,
  group_id         text    NOT NULL,
  topic            text    NOT NULL,
  partition_index  integer NOT NULL,
  committed_offset bigint  NOT NULL,
  leader_epoch     integer NOT NULL,
  metadata         text,
  commit_ms        bigint  NOT NULL,
  PRIMARY KEY (transactional_id, group_id, topic, partition_index)
);
CREATE INDEX txn_offset_group ON txn_offset (group_id);

-- The first offset each ongoing transaction wrote to a partition: the last stable offset is the
-- smallest of them (else the high watermark). Read in the same statement as the high watermark.
CREATE TABLE open_txn (
  partition_id bigint NOT NULL REFERENCES partition (id) ON DELETE CASCADE,
  producer_id  bigint NOT NULL,
  first_offset bigint NOT NULL,
  PRIMARY KEY (partition_id, producer_id)
);

-- Aborted transactions per partition (Kafka's .txnindex); last_offset is the ABORT marker's offset.
CREATE TABLE aborted_txn (
  partition_id bigint NOT NULL REFERENCES partition (id) ON DELETE CASCADE,
  producer_id  bigint NOT NULL,
  first_offset bigint NOT NULL,
  last_offset  bigint NOT NULL,
  PRIMARY KEY (partition_id, last_offset)
);

-- Compaction (docs/compaction.md): each compacted partition's last pass.
CREATE TABLE log_cleaner (
  partition_id    bigint PRIMARY KEY REFERENCES partition (id) ON DELETE CASCADE,
  clean_offset    bigint NOT NULL,
  last_cleaned_ms bigint NOT NULL,
  bytes_before    bigint NOT NULL,
  bytes_after     bigint NOT NULL,
  next_horizon_ms bigint NOT NULL DEFAULT -1  -- the earliest delete horizon the last pass left
);
`;

// Classic group membership at the end of each rebalance (sqlite's migration 8, storage/group-metadata.ts).
const groupMetadata = `
CREATE TABLE group_metadata (
  group_id      text    PRIMARY KEY,
  protocol_type text,
  generation    integer NOT NULL,
  protocol_name text,
  leader_id     text,
  updated_ms    bigint  NOT NULL
);
CREATE TABLE group_member (
  group_id             text    NOT NULL REFERENCES group_metadata (group_id) ON DELETE CASCADE,
  member_id            text    NOT NULL,
  join_order           integer NOT NULL,
  group_instance_id    text,
  client_id            text    NOT NULL,
  client_host          text    NOT NULL,
  rebalance_timeout_ms integer NOT NULL,
  session_timeout_ms   integer NOT NULL,
  subscription         bytea   NOT NULL,
  assignment           bytea   NOT NULL,
  PRIMARY KEY (group_id, member_id)
);
`;

// Share groups' delivery state per share-partition (sqlite's migration 9, storage/share-store.ts).
const sharePartitionState = `
CREATE TABLE share_partition_state (
  group_id     text    NOT NULL,
  topic_id     text    NOT NULL,
  partition    integer NOT NULL,
  start_offset bigint  NOT NULL,
  end_offset   bigint  NOT NULL,
  records      text    NOT NULL,
  PRIMARY KEY (group_id, topic_id, partition)
);
`;

// The producer states (and open transactions) of (partition id, producer id) pairs, read by the
// append's partition-lock statement in the same round trip (log-writes.ts, lockPartitionsWithProducers).
// VOLATILE plpgsql, on purpose: its query takes a fresh snapshot when it runs, after the calling
// statement took its row locks, so it sees what another broker committed while we waited for the
// lock; the calling statement's own snapshot (taken before the wait) could not. Not SQL-language:
// the planner could inline that into the caller's snapshot.
const appendProducerStates = `
CREATE FUNCTION minnow_producer_rows(partition_ids bigint[], producer_ids bigint[], with_open boolean)
RETURNS TABLE (is_open boolean, partition_id bigint, producer_id bigint, epoch integer, batches bytea)
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  RETURN QUERY
    WITH u AS (SELECT DISTINCT * FROM unnest(partition_ids, producer_ids) AS u(pa, pr))
    SELECT false, s.partition_id, s.producer_id, s.epoch, s.batches FROM producer_partition s
      JOIN u ON s.partition_id = u.pa AND s.producer_id = u.pr
    UNION ALL
    SELECT true, o.partition_id, o.producer_id, NULL::integer, NULL::bytea FROM open_txn o
      JOIN u ON o.partition_id = u.pa AND o.producer_id = u.pr WHERE with_open;
END
$fn$;
`;

export const PG_MIGRATIONS: readonly PgMigration[] = [
  { version: 1, name: 'initial', sql: initial },
  { version: 2, name: 'group_metadata', sql: groupMetadata },
  { version: 3, name: 'share_partition_state', sql: sharePartitionState },
  { version: 4, name: 'append_producer_states', sql: appendProducerStates },
];
