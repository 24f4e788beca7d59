// What `minnow migrate` copies: every table of the sqlite:// schema, parents before the tables
// that reference them, each with the columns that order its rows (its primary key). The
// postgres:// schema has the same tables and columns (postgres/migrations.ts, migration 1).
export interface CopiedTable {
  name: string;
  /** ORDER BY for reading and for comparing: the primary key. */
  orderBy: string;
}

export const COPIED_TABLES: readonly CopiedTable[] = [
  { name: 'cluster', orderBy: 'id' },
  { name: 'topic', orderBy: 'id' },
  { name: 'topic_config', orderBy: 'topic_id, name' },
  { name: 'partition', orderBy: 'id' },
  { name: 'record_batch', orderBy: 'partition_id, base_offset' },
  { name: 'producer', orderBy: 'producer_id' },
  { name: 'producer_partition', orderBy: 'partition_id, producer_id' },
  { name: 'group_offset', orderBy: 'group_id, topic, partition_index' },
  { name: 'broker_config', orderBy: 'resource, name' },
  { name: 'scram_credential', orderBy: 'user_name, mechanism' },
  { name: 'acl', orderBy: 'resource_type, resource_name, pattern_type, principal, host, operation, permission_type' },
  { name: 'client_quota', orderBy: 'entity, key' },
  { name: 'txn', orderBy: 'transactional_id' },
  { name: 'txn_partition', orderBy: 'transactional_id, partition_id' },
  { name: 'txn_group', orderBy: 'transactional_id, group_id' },
  { name: 'txn_offset', orderBy: 'transactional_id, group_id, topic, partition_index' },
  { name: 'open_txn', orderBy: 'partition_id, producer_id' },
  { name: 'aborted_txn', orderBy: 'partition_id, last_offset' },
  { name: 'log_cleaner', orderBy: 'partition_id' },
  { name: 'group_metadata', orderBy: 'group_id' },
  { name: 'group_member', orderBy: 'group_id, member_id' },
  { name: 'share_partition_state', orderBy: 'group_id, topic_id, partition' },
];

/** The table copied partition by partition, in chunks (each chunk one PostgreSQL transaction). */
export const BATCH_TABLE = 'record_batch';
