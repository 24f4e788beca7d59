// The memory:// engine's consumer group state: committed offsets by group, and the classic
// groups' stored membership (storage/group-metadata.ts), copied in and out.
import type { CommittedOffset, StoredGroup } from '../storage';
import type { StoredSharePartition, StoredSharePartitionOfGroup } from '../share-store';

const offsetKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class MemoryGroups {
  /** Group id to its committed offsets by offsetKey; a group without offsets is not kept. */
  private readonly offsets = new Map<string, Map<string, CommittedOffset>>();
  private readonly membership = new Map<string, StoredGroup>();

  commitOffsets(groupId: string, offsets: readonly Omit<CommittedOffset, 'commitTimestampMs'>[], nowMs: number): void {
    let group = this.offsets.get(groupId);
    if (!group) this.offsets.set(groupId, (group = new Map()));
    for (const o of offsets) group.set(offsetKey(o.topic, o.partition), { ...o, commitTimestampMs: nowMs });
  }

  /** Sorted by topic, then partition. */
  fetchOffsets(groupId: string): CommittedOffset[] {
    const list = [...(this.offsets.get(groupId)?.values() ?? [])].map((o) => ({ ...o }));
    return list.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  }

  deleteOffsets(groupId: string, partitions?: readonly { topic: string; partition: number }[]): void {
    if (partitions === undefined) this.offsets.delete(groupId);
    else for (const p of partitions) this.offsets.get(groupId)?.delete(offsetKey(p.topic, p.partition));
    this.dropEmptyGroups();
  }

  /** A deleted topic's offsets go from every group. */
  forgetTopic(name: string): void {
    for (const offsets of this.offsets.values()) {
      for (const [key, o] of offsets) if (o.topic === name) offsets.delete(key);
    }
    this.dropEmptyGroups();
  }

  offsetGroups(): string[] {
    return [...this.offsets.keys()].sort();
  }

  storeGroupMetadata(groupId: string, group: StoredGroup | null): void {
    if (group === null) this.membership.delete(groupId);
    else this.membership.set(groupId, { ...group, members: group.members.map((m) => ({ ...m })) });
  }
  groupMetadata(groupId: string): StoredGroup | undefined {
    const g = this.membership.get(groupId);
    return g && { ...g, members: g.members.map((m) => ({ ...m })) };
  }

  /** Share-partition delivery state (share-store.ts), by "group\0topicId\0partition". */
  private readonly shareState = new Map<string, StoredSharePartition>();

  storeSharePartition(groupId: string, topicId: string, partition: number, state: StoredSharePartition | null): void {
    const key = `${groupId}\u0000${topicId}\u0000${partition}`;
    if (state === null) this.shareState.delete(key);
    else this.shareState.set(key, { ...state, records: state.records.map((r) => ({ ...r })) });
  }
  sharePartition(groupId: string, topicId: string, partition: number): StoredSharePartition | undefined {
    const s = this.shareState.get(`${groupId}\u0000${topicId}\u0000${partition}`);
    return s && { ...s, records: s.records.map((r) => ({ ...r })) };
  }
  sharePartitionsOfGroup(groupId: string): StoredSharePartitionOfGroup[] {
    const out: StoredSharePartitionOfGroup[] = [];
    for (const [key, s] of this.shareState) {
      const [g, topicId, partition] = key.split('\u0000');
      if (g !== groupId) continue;
      out.push({
        topicId: topicId!,
        partition: Number(partition),
        state: { ...s, records: s.records.map((r) => ({ ...r })) },
      });
    }
    return out.sort((a, b) => (a.topicId < b.topicId ? -1 : a.topicId > b.topicId ? 1 : a.partition - b.partition));
  }

  private dropEmptyGroups(): void {
    for (const [id, offsets] of this.offsets) if (offsets.size === 0) this.offsets.delete(id);
  }
}
