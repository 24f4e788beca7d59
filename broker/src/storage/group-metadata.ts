// A classic group's membership as stored at the end of each rebalance, so a broker restart (or a
// coordinator failover on postgres://) is invisible to a stable group: Kafka's GroupMetadataValue
// (group/GroupMetadataValue.json in its offsets log). Members carry the metadata of the selected
// protocol only (Kafka's "subscription"). KIP-848 consumer groups are meant to reuse the same rows:
// protocol type 'consumer', the group epoch as the generation.

export interface StoredGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  /** The member's metadata for the group's selected protocol. */
  subscription: Buffer;
  assignment: Buffer;
}

export interface StoredGroup {
  groupId: string;
  protocolType: string | null;
  generationId: number;
  protocolName: string | null;
  leaderId: string | null;
  /** When it was written (ms). */
  updatedMs: number;
  /** In join order (the order the leader falls back along). Empty for an Empty group. */
  members: StoredGroupMember[];
}
