// ListGroups and DescribeGroups: the in-memory groups plus groups known only by committed offsets
// (listed as Empty, as Kafka lists groups it loaded from __consumer_offsets).
import { ErrorCode } from '../protocol/error-codes';
import type { GroupRegistry } from './group-registry';
import { GroupState } from './group-state';

/** ListGroups v5's group types: classic groups, and KIP-848 consumer groups (groups/consumer/). */
export const GROUP_TYPE = 'classic';
export const CONSUMER_GROUP_TYPE = 'consumer';

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  groupState: string;
  groupType: string;
}

export interface DescribedMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** The metadata for the selected protocol; empty unless the group is Stable (as in Kafka). */
  memberMetadata: Buffer;
  memberAssignment: Buffer;
}

export interface DescribedGroup {
  errorCode: number;
  groupId: string;
  groupState: string;
  protocolType: string;
  /** The selected protocol, only while Stable. */
  protocolData: string;
  members: DescribedMember[];
}

/** ListGroups: filters (v4+ states, v5+ types) compare case-insensitively; empty means all. */
export async function listGroups(
  coord: GroupRegistry,
  statesFilter: readonly string[],
  typesFilter: readonly string[],
): Promise<ListedGroup[]> {
  if (coord.isClosed) return [];
  const out = new Map<string, ListedGroup>();
  for (const g of coord.allGroups()) {
    if (!g.is(GroupState.Dead))
      out.set(g.groupId, {
        groupId: g.groupId,
        protocolType: g.protocolType ?? '',
        groupState: g.state,
        groupType: GROUP_TYPE,
      });
  }
  for (const g of coord.consumer.allGroups())
    out.set(g.groupId, {
      groupId: g.groupId,
      protocolType: 'consumer',
      groupState: g.state(),
      groupType: CONSUMER_GROUP_TYPE,
    });
  for (const groupId of await coord.storage.offsetGroups()) {
    if (!out.has(groupId))
      out.set(groupId, { groupId, protocolType: '', groupState: GroupState.Empty, groupType: GROUP_TYPE });
  }
  const states = new Set(statesFilter.map((s) => s.toLowerCase()));
  const types = new Set(typesFilter.map((t) => t.toLowerCase()));
  return [...out.values()].filter(
    (g) =>
      (states.size === 0 || states.has(g.groupState.toLowerCase())) && (types.size === 0 || types.has(g.groupType)),
  );
}

/**
 * DescribeGroups for one id. An unknown group is described as Dead with no error (v0-5 behaviour),
 * and so is a KIP-848 consumer group, as Kafka 4 answers v0-5 (ConsumerGroupDescribe describes it).
 */
export async function describeGroup(coord: GroupRegistry, groupId: string): Promise<DescribedGroup> {
  const none = (groupState: string): DescribedGroup => ({
    errorCode: ErrorCode.NONE,
    groupId,
    groupState,
    protocolType: '',
    protocolData: '',
    members: [],
  });
  if (coord.isClosed) return { ...none(''), errorCode: ErrorCode.NOT_COORDINATOR };
  if (coord.consumer.group(groupId)) return none(GroupState.Dead);
  const g = coord.group(groupId);
  if (!g) return none((await coord.storage.fetchOffsets(groupId)).length > 0 ? GroupState.Empty : GroupState.Dead);
  const stable = g.is(GroupState.Stable);
  const protocol = stable ? (g.protocolName ?? '') : '';
  return {
    errorCode: ErrorCode.NONE,
    groupId,
    groupState: g.state,
    protocolType: g.protocolType ?? '',
    protocolData: protocol,
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      memberMetadata: stable ? m.metadataFor(protocol) : Buffer.alloc(0),
      memberAssignment: stable ? m.assignment : Buffer.alloc(0),
    })),
  };
}
