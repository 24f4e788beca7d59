// One share group's membership (KIP-932; Kafka's modern/share/ShareGroup and the share path of
// GroupMetadataManager.shareGroupHeartbeat). Share members have no revocation step: every member may
// read every partition at once (the share-partition state decides who gets which record), so a
// member moves to the group epoch with its new assignment in one heartbeat.

/** topic id -> sorted partition indexes. */
export type ShareAssignment = Map<string, number[]>;

export interface ShareMember {
  memberId: string;
  memberEpoch: number;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  assignment: ShareAssignment;
}

export interface TopicView {
  topicId: string;
  name: string;
  partitionCount: number;
}

export function sameAssignment(a: ShareAssignment, b: ShareAssignment): boolean {
  if (a.size !== b.size) return false;
  for (const [id, parts] of a) {
    const other = b.get(id);
    if (!other || other.length !== parts.length || other.some((p, i) => p !== parts[i])) return false;
  }
  return true;
}

export class ShareGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ShareMember>();
  /** Counts changes of the members or their subscriptions (the coordinator's target assignment cache key). */
  membershipVersion = 0;

  constructor(readonly groupId: string) {}

  /** Kafka's ShareGroup states: Empty without members, else Stable (no reconciliation phase). */
  get state(): 'Empty' | 'Stable' {
    return this.members.size === 0 ? 'Empty' : 'Stable';
  }

  /** Every topic name some member subscribes to. */
  subscribedTopics(): Set<string> {
    const s = new Set<string>();
    for (const m of this.members.values()) for (const t of m.subscribedTopicNames) s.add(t);
    return s;
  }

  /** Every (topic id, partition) assigned to some member. */
  assignedPartitions(): Array<{ topicId: string; partition: number }> {
    const seen = new Set<string>();
    const out: Array<{ topicId: string; partition: number }> = [];
    for (const m of this.members.values()) {
      for (const [topicId, parts] of m.assignment) {
        for (const p of parts) {
          const k = `${topicId}:${p}`;
          if (seen.has(k)) continue;
          seen.add(k);
          out.push({ topicId, partition: p });
        }
      }
    }
    return out;
  }
}
