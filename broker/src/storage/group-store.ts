// The consumer groups' part of the Storage interface (storage.ts composes it): committed offsets
// and the classic groups' stored membership (group-metadata.ts).
import type { StoredGroup } from './group-metadata';

export interface CommittedOffset {
  topic: string;
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
  commitTimestampMs: number;
}

export interface GroupStore {
  commitOffsets(groupId: string, offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[], nowMs: number): void;
  fetchOffsets(groupId: string): CommittedOffset[];
  /** Deletes the given partitions' offsets, or all of the group's when `partitions` is undefined. */
  deleteOffsets(groupId: string, partitions?: readonly { topic: string; partition: number }[]): void;
  /** Groups that have committed offsets. */
  offsetGroups(): string[];
  /** Replaces the group's stored membership in one transaction (group-metadata.ts); null deletes it. */
  storeGroupMetadata(groupId: string, group: StoredGroup | null): void;
  /** The group's stored membership, members in join order. */
  groupMetadata(groupId: string): StoredGroup | undefined;
}
