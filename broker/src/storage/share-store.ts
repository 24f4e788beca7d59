// The share groups' part of the Storage interface (storage.ts composes it, KIP-932): each
// share-partition's delivery state, so a restart keeps what was acknowledged, archived and how often
// each in-flight record was delivered (Kafka keeps the same in its __share_group_state topic).
// groups/share/share-partition.ts makes and reads it.

/** One record between the start and end offsets; ACQUIRED records are stored as AVAILABLE. */
export interface StoredShareRecord {
  offset: number;
  /** groups/share RecordState: 0 available, 2 acknowledged, 4 archived. */
  state: number;
  deliveryCount: number;
}

export interface StoredSharePartition {
  /** The share-partition start offset (SPSO): everything below is done. */
  startOffset: number;
  /** The share-partition end offset (SPEO): nothing from here on was handed out. */
  endOffset: number;
  records: StoredShareRecord[];
}

export interface ShareStore {
  /** Replaces one share-partition's stored state; null deletes it. */
  storeSharePartition(groupId: string, topicId: string, partition: number, state: StoredSharePartition | null): void;
  sharePartition(groupId: string, topicId: string, partition: number): StoredSharePartition | undefined;
  /** Every stored share-partition of one group (the share-group admin APIs), by topic id then partition. */
  sharePartitionsOfGroup(groupId: string): StoredSharePartitionOfGroup[];
}

export interface StoredSharePartitionOfGroup {
  topicId: string;
  partition: number;
  state: StoredSharePartition;
}

/** The in-flight records as stored (a JSON array of [offset, state, deliveryCount]). */
export function encodeShareRecords(records: readonly StoredShareRecord[]): string {
  return JSON.stringify(records.map((r) => [r.offset, r.state, r.deliveryCount]));
}

export function decodeShareRecords(text: string): StoredShareRecord[] {
  const rows = JSON.parse(text) as Array<[number, number, number]>;
  return rows.map(([offset, state, deliveryCount]) => ({ offset, state, deliveryCount }));
}
