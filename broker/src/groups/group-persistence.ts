// A group's membership to and from storage (storage/group-metadata.ts), as Kafka's
// GroupMetadataManager writes GroupMetadataValue at the end of each rebalance and loads it when it
// becomes the group's coordinator: a restart or a coordinator move is then invisible to a stable
// group (members keep their ids and generation; their session timers restart at the load).
import type { StoredGroup } from '../storage/group-metadata';
import { Group, Member } from './group';
import { GroupState } from './group-state';

/** The group as it is now, members in join order with their metadata for the selected protocol. */
export function storedGroup(group: Group, nowMs: number): StoredGroup {
  const protocol = group.protocolName ?? '';
  return {
    groupId: group.groupId,
    protocolType: group.protocolType,
    generationId: group.generationId,
    protocolName: group.protocolName,
    leaderId: group.leaderId,
    updatedMs: nowMs,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      sessionTimeoutMs: m.sessionTimeoutMs,
      subscription: m.metadataFor(protocol),
      assignment: m.assignment,
    })),
  };
}

/**
 * The stored group back in memory: Stable with its members, or Empty (keeping its generation).
 * As Kafka's GroupMetadata.loadGroup, each member supports just the selected protocol, with the
 * stored subscription; the caller restarts their session timers.
 */
export function restoredGroup(stored: StoredGroup): Group {
  const group = new Group(stored.groupId);
  for (const m of stored.members) {
    const member = new Member(
      m.memberId,
      m.groupInstanceId,
      m.clientId,
      m.clientHost,
      m.rebalanceTimeoutMs,
      m.sessionTimeoutMs,
      stored.protocolType ?? '',
      [{ name: stored.protocolName ?? '', metadata: m.subscription }],
    );
    member.assignment = m.assignment;
    member.isNew = false;
    group.add(member);
  }
  group.generationId = stored.generationId;
  group.protocolType = stored.protocolType;
  group.protocolName = stored.protocolName;
  if (stored.leaderId !== null && group.has(stored.leaderId)) group.leaderId = stored.leaderId;
  // Loaded, not reached by a transition: Kafka's loadGroup sets the state the same way.
  group.state = group.size > 0 ? GroupState.Stable : GroupState.Empty;
  return group;
}
