// The classic group protocol's states, with Kafka's names so DescribeGroups/ListGroups return
// them as they are (kafka/coordinator/group/GroupState.scala), and the transitions Kafka allows.
export const GroupState = {
  /** No members; the group may still hold committed offsets. */
  Empty: 'Empty',
  /** A rebalance started: JoinGroup responses are held until every known member rejoined. */
  PreparingRebalance: 'PreparingRebalance',
  /** Join finished: waiting for the leader's assignment in SyncGroup (Kafka's AwaitingSync). */
  CompletingRebalance: 'CompletingRebalance',
  /** Members have their assignment and heartbeat. */
  Stable: 'Stable',
  /** Deleted (DeleteGroups); a request still holding the group sees this. */
  Dead: 'Dead',
} as const;

export type GroupState = (typeof GroupState)[keyof typeof GroupState];

/** The states each state may be entered from. */
const VALID_PREVIOUS: Record<GroupState, readonly GroupState[]> = {
  Empty: [GroupState.PreparingRebalance],
  PreparingRebalance: [GroupState.Stable, GroupState.CompletingRebalance, GroupState.Empty],
  CompletingRebalance: [GroupState.PreparingRebalance],
  Stable: [GroupState.CompletingRebalance],
  Dead: [
    GroupState.Stable,
    GroupState.PreparingRebalance,
    GroupState.CompletingRebalance,
    GroupState.Empty,
    GroupState.Dead,
  ],
};

export const canTransition = (from: GroupState, to: GroupState): boolean => VALID_PREVIOUS[to].includes(from);

/** Parses a state name as ListGroups v4+ filters compare them: case-insensitively. */
export function parseGroupState(name: string): GroupState | undefined {
  const lower = name.toLowerCase();
  return Object.values(GroupState).find((s) => s.toLowerCase() === lower);
}
