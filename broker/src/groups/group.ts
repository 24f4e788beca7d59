// One classic group's membership, held in memory (members rejoin after a restart, as with Kafka;
// only committed offsets are stored). The rules that move it between states live in coordinator.ts;
// this file keeps the bookkeeping: members, static-member mapping, leader, protocol selection.
import { ErrorCode } from '../protocol/error-codes';
import { canTransition, GroupState } from './group-state';
import type { TimerHandle } from './timers';

export interface GroupProtocol {
  name: string;
  metadata: Buffer;
}

export interface JoinResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  memberId: string;
  skipAssignment: boolean;
  /** Only the leader gets the members (with their metadata for the selected protocol). */
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[];
}

export interface SyncResult {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

const EMPTY = Buffer.alloc(0);

export const joinError = (errorCode: number, memberId = ''): JoinResult => ({
  errorCode,
  generationId: -1,
  protocolType: null,
  protocolName: null,
  leader: '',
  memberId,
  skipAssignment: false,
  members: [],
});

export const syncError = (errorCode: number): SyncResult => ({
  errorCode,
  protocolType: null,
  protocolName: null,
  assignment: EMPTY,
});

export class Member {
  /** The member's held JoinGroup response, while a rebalance is in progress. */
  joinWaiter: ((r: JoinResult) => void) | null = null;
  /** The member's held SyncGroup response, while the leader has not sent the assignment. */
  syncWaiter: ((r: SyncResult) => void) | null = null;
  assignment: Buffer = EMPTY;
  /** Joined during the current rebalance (not yet answered once). */
  isNew = true;
  /** When the session expires without another heartbeat (ms, on the injected clock). */
  heartbeatDeadlineMs = 0;
  heartbeatTimer: TimerHandle | null = null;

  constructor(
    readonly memberId: string,
    readonly groupInstanceId: string | null,
    public clientId: string,
    public clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    public protocolType: string,
    public protocols: GroupProtocol[],
  ) {}

  get isAwaitingJoin(): boolean {
    return this.joinWaiter !== null;
  }

  get isAwaitingSync(): boolean {
    return this.syncWaiter !== null;
  }

  get isStatic(): boolean {
    return this.groupInstanceId !== null;
  }

  /** The member's metadata for `protocol`; empty if it does not support it. */
  metadataFor(protocol: string): Buffer {
    return this.protocols.find((p) => p.name === protocol)?.metadata ?? EMPTY;
  }

  /** The same protocols, in the same order, with the same metadata (Kafka's MemberMetadata.matches). */
  matches(protocols: readonly GroupProtocol[]): boolean {
    return (
      protocols.length === this.protocols.length &&
      protocols.every((p, i) => p.name === this.protocols[i]!.name && p.metadata.equals(this.protocols[i]!.metadata))
    );
  }

  /** The first of this member's protocols (by its preference order) among `candidates`. */
  vote(candidates: ReadonlySet<string>): string | undefined {
    return this.protocols.find((p) => candidates.has(p.name))?.name;
  }
}

export class Group {
  state: GroupState = GroupState.Empty;
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  /** Members in join order (a Map keeps insertion order; the leader is the first joined by default). */
  readonly members = new Map<string, Member>();
  /** group.instance.id -> its current member id (KIP-345). */
  readonly staticMembers = new Map<string, string>();
  /** Member ids handed out with MEMBER_ID_REQUIRED (KIP-394), not yet joined, with their expiry timers. */
  readonly pendingMembers = new Map<string, TimerHandle>();
  /** Members of the current generation that have not sent SyncGroup yet. */
  readonly pendingSync = new Set<string>();
  /** Timer completing the join phase (rebalance timeout or group.initial.rebalance.delay.ms). */
  joinTimer: TimerHandle | null = null;
  /** Timer removing members that never sent SyncGroup after the join. */
  syncTimer: TimerHandle | null = null;
  /** Set while the first rebalance of an Empty group waits out the initial delay. */
  initialDelay: { remainingMs: number; newMemberAdded: boolean } | null = null;

  constructor(readonly groupId: string) {}

  is(state: GroupState): boolean {
    return this.state === state;
  }

  transitionTo(to: GroupState): void {
    if (!canTransition(this.state, to))
      throw new Error(`group ${this.groupId}: illegal transition ${this.state} -> ${to}`);
    this.state = to;
  }

  get size(): number {
    return this.members.size;
  }

  has(memberId: string): boolean {
    return this.members.has(memberId);
  }

  get(memberId: string): Member | undefined {
    return this.members.get(memberId);
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  add(member: Member): void {
    if (this.members.size === 0) this.protocolType = member.protocolType;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
    if (this.leaderId === null) this.leaderId = member.memberId;
  }

  remove(memberId: string): Member | undefined {
    const member = this.members.get(memberId);
    if (!member) return undefined;
    this.members.delete(memberId);
    this.pendingSync.delete(memberId);
    if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === memberId)
      this.staticMembers.delete(member.groupInstanceId);
    if (this.leaderId === memberId) this.leaderId = this.members.keys().next().value ?? null;
    return member;
  }

  /** The static member now known as `newMemberId` (KIP-345: a restarted instance fences its old id). */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): Member {
    const old = this.members.get(oldMemberId);
    if (!old)
      throw new Error(`group ${this.groupId}: static member ${groupInstanceId} maps to unknown member ${oldMemberId}`);
    const member = new Member(
      newMemberId,
      groupInstanceId,
      old.clientId,
      old.clientHost,
      old.rebalanceTimeoutMs,
      old.sessionTimeoutMs,
      old.protocolType,
      old.protocols,
    );
    member.assignment = old.assignment;
    member.isNew = false;
    // Keep the member's position (join order) so the leader does not change by accident.
    const entries = [...this.members.entries()].map(([id, m]): [string, Member] =>
      id === oldMemberId ? [newMemberId, member] : [id, m],
    );
    this.members.clear();
    for (const [id, m] of entries) this.members.set(id, m);
    this.staticMembers.set(groupInstanceId, newMemberId);
    if (this.pendingSync.delete(oldMemberId)) this.pendingSync.add(newMemberId);
    if (this.leaderId === oldMemberId) this.leaderId = newMemberId;
    return member;
  }

  /** The member id currently mapped to `groupInstanceId`, if any. */
  staticMemberId(groupInstanceId: string): string | undefined {
    return this.staticMembers.get(groupInstanceId);
  }

  /** Kafka's isStaticMemberFenced: the instance id is known but mapped to another member id. */
  isStaticMemberFenced(groupInstanceId: string, memberId: string): boolean {
    const current = this.staticMembers.get(groupInstanceId);
    return current !== undefined && current !== memberId;
  }

  /** Every member rejoined and no MEMBER_ID_REQUIRED member is still expected. */
  get hasAllMembersJoined(): boolean {
    if (this.pendingMembers.size > 0) return false;
    for (const m of this.members.values()) if (!m.isAwaitingJoin) return false;
    return true;
  }

  /** The longest rebalance timeout of the members: how long a join waits for everyone. */
  get rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /** Protocol names every member supports. */
  candidateProtocols(): Set<string> {
    const all = [...this.members.values()];
    if (all.length === 0) return new Set<string>();
    const names = all[0]!.protocols.map((p) => p.name);
    return new Set(names.filter((n) => all.every((m) => m.protocols.some((p) => p.name === n))));
  }

  /**
   * Kafka's GroupMetadata.selectProtocol: among the protocols all members support, each member
   * votes for the first in its own preference order; most votes wins. Ties go to the protocol the
   * longest-standing member prefers, so the choice is deterministic.
   */
  selectProtocol(): string {
    const first = this.members.values().next().value as Member | undefined;
    if (!first) throw new Error(`group ${this.groupId}: no members to select a protocol for`);
    let candidates = this.candidateProtocols();
    // supportsProtocols() admits only joiners that share a protocol with everyone, so this is a
    // safety net: fall back to the longest-standing member's protocols rather than fail.
    if (candidates.size === 0) candidates = new Set(first.protocols.map((p) => p.name));
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const v = m.vote(candidates);
      if (v !== undefined) votes.set(v, (votes.get(v) ?? 0) + 1);
    }
    const rank = (name: string) => first.protocols.findIndex((p) => p.name === name);
    return [...votes.entries()].sort((a, b) => b[1] - a[1] || rank(a[0]) - rank(b[0]))[0]![0];
  }

  /**
   * Kafka's supportsProtocols: an Empty group takes any non-empty protocol type; otherwise the type
   * must match and one of the joiner's protocols must be supported by every current member.
   */
  supportsProtocols(protocolType: string, protocols: readonly GroupProtocol[]): boolean {
    if (protocolType === '' || protocols.length === 0) return false;
    if (this.members.size === 0) return true;
    if (protocolType !== this.protocolType) return false;
    const candidates = this.candidateProtocols();
    return protocols.some((p) => candidates.has(p.name));
  }

  /** Members' metadata for the selected protocol, as the leader receives it. */
  currentMemberMetadata(): JoinResult['members'] {
    const protocol = this.protocolName ?? '';
    return [...this.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: m.metadataFor(protocol),
    }));
  }
}

/**
 * Kafka's validateCurrentMember: with a group.instance.id it must be known and mapped to this
 * member id (else FENCED_INSTANCE_ID: another instance took it over); without one the member id
 * must be known.
 */
export function validateCurrentMember(group: Group, memberId: string, groupInstanceId: string | null): number | null {
  if (groupInstanceId !== null) {
    if (group.staticMemberId(groupInstanceId) === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.isStaticMemberFenced(groupInstanceId, memberId)) return ErrorCode.FENCED_INSTANCE_ID;
    return null;
  }
  return group.has(memberId) ? null : ErrorCode.UNKNOWN_MEMBER_ID;
}
