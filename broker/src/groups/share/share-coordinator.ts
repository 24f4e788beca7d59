// The share-group coordinator (KIP-932): ShareGroupHeartbeat (join, epochs, the simple assignor,
// leave, session timeout), ShareGroupDescribe and the groups ListGroups shows as type "share".
// Kafka's GroupMetadataManager.shareGroupHeartbeat, without its revocation step (share members hold
// partitions together). The delivery state is in share-partitions.ts; a member that leaves or times
// out gives its acquired records back there. Membership is stored after each change
// (share-membership.ts, not awaited by the answers) and loaded back when the group is first used
// (a restart, or this broker taking the group's coordinator lease over on postgres://).
import { KeyedSerial } from '../../keyed-serial';
import type { StoredGroup } from '../../storage/group-metadata';
import { ErrorCode } from '../../protocol/error-codes';
import type { Logger } from '../../logger';
import type { Storage } from '../../storage/storage';
import type { ShareGroupConfigs } from './share-group-configs';
import { restoredShareGroup, storedShareGroup } from './share-membership';
import { simpleAssignor } from './share-assignor';
import { ShareGroup, sameAssignment, type ShareAssignment, type TopicView } from './share-group';

export interface ShareCoordinatorOptions {
  storage: Storage;
  logger: Logger;
  now: () => number;
  /** Each group's session timeout and heartbeat interval (share.*, else group.share.*). */
  configs: ShareGroupConfigs;
  /** group.share.max.size (Kafka 200). */
  maxGroupSize: number;
  /**
   * Called when a member is timed out: its share session ends and its acquired records go back.
   * Not called for a leave: the member's share session is its own, ended by the closing ShareFetch
   * or ShareAcknowledge (epoch -1) that librdkafka sends after its leave heartbeat with the last
   * acknowledgements (Kafka 4.1's ShareSessionCache is not told of leaves either).
   */
  onMemberGone: (groupId: string, memberId: string) => void;
}

export interface ShareHeartbeatInput {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  rackId: string | null;
  subscribedTopicNames: string[] | null;
  clientId: string;
  clientHost: string;
}

export interface ShareHeartbeatResult {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: Array<{ topicId: string; partitions: number[] }> } | null;
}

const LEAVE_EPOCH = -1;

const toWire = (a: ShareAssignment) => ({
  topicPartitions: [...a.entries()].map(([topicId, partitions]) => ({ topicId, partitions })),
});

export class ShareCoordinator {
  private readonly groups = new Map<string, ShareGroup>();
  private readonly sessionTimers = new Map<string, NodeJS.Timeout>();
  private readonly writes = new KeyedSerial();
  /** Groups with a write queued that has not started yet (later changes ride on it). */
  private readonly queuedWrites = new Set<string>();
  private readonly unsettledWrites = new Set<Promise<void>>();
  private readonly targets = new WeakMap<ShareGroup, { key: string; byMember: Map<string, ShareAssignment> }>();

  constructor(private readonly opts: ShareCoordinatorOptions) {}

  group(groupId: string): ShareGroup | undefined {
    return this.groups.get(groupId);
  }

  allGroups(): ShareGroup[] {
    return [...this.groups.values()];
  }

  /** Whether this broker holds the share group in memory (GroupSessions.loadGroup asks). */
  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  /** A stored share group loaded (GroupSessions.loadGroup found the mark): its members' timers restart. */
  adoptStored(stored: StoredGroup): void {
    if (this.groups.has(stored.groupId)) return;
    const group = restoredShareGroup(stored);
    this.groups.set(group.groupId, group);
    const { sessionTimeoutMs } = this.opts.configs.known(group.groupId);
    for (const memberId of group.members.keys()) this.scheduleSessionTimeout(group.groupId, memberId, sessionTimeoutMs);
    this.opts.logger.info(
      `share group ${group.groupId} loaded from storage: epoch ${group.groupEpoch}, ${group.members.size} members`,
    );
  }

  /** Forgets a group's in-memory state (its coordination moved to another broker, src/cluster). */
  unload(groupId: string): void {
    const group = this.groups.get(groupId);
    if (!group) return;
    for (const memberId of group.members.keys()) this.clearSessionTimer(groupId, memberId);
    this.groups.delete(groupId);
  }

  /** The membership writes asked for so far have ended (stop, before the database closes). */
  async writesSettled(): Promise<void> {
    while (this.unsettledWrites.size > 0) await Promise.all([...this.unsettledWrites]);
  }

  /** Whether \`memberId\` is a member of the share group now. */
  isMember(groupId: string, memberId: string): boolean {
    return this.groups.get(groupId)?.members.has(memberId) ?? false;
  }

  async heartbeat(req: ShareHeartbeatInput): Promise<ShareHeartbeatResult> {
    const fail = (errorCode: number, errorMessage: string | null = null): ShareHeartbeatResult => ({
      errorCode,
      errorMessage,
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    // Kafka's throwIfShareGroupHeartbeatRequestIsInvalid (KIP-1082: the client makes the member id).
    if (req.groupId === '') return fail(ErrorCode.INVALID_REQUEST, 'GroupId can not be empty.');
    if (req.memberId === '') return fail(ErrorCode.INVALID_REQUEST, 'MemberId can not be empty.');
    if (req.memberEpoch < LEAVE_EPOCH)
      return fail(ErrorCode.INVALID_REQUEST, `MemberEpoch ${req.memberEpoch} is invalid.`);
    if (req.memberEpoch === 0 && (req.subscribedTopicNames === null || req.subscribedTopicNames.length === 0)) {
      return fail(ErrorCode.INVALID_REQUEST, 'SubscribedTopicNames must be set in first request.');
    }
    const settings = await this.opts.configs.of(req.groupId);
    let group = this.groups.get(req.groupId);
    if (req.memberEpoch === LEAVE_EPOCH) {
      if (group?.members.has(req.memberId)) this.removeMember(group, req.memberId, 'left');
      return { ...fail(ErrorCode.NONE), memberId: req.memberId, memberEpoch: LEAVE_EPOCH };
    }
    let member = group?.members.get(req.memberId);
    if (req.memberEpoch !== 0) {
      if (!member) {
        return fail(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${req.groupId}.`);
      }
      if (req.memberEpoch !== member.memberEpoch) {
        return fail(
          ErrorCode.FENCED_MEMBER_EPOCH,
          `The share group member has a epoch ${req.memberEpoch} which is not the current epoch ${member.memberEpoch}.`,
        );
      }
    }
    if (!group) {
      group = new ShareGroup(req.groupId);
      this.groups.set(req.groupId, group);
    }
    if (!member && group.members.size >= this.opts.maxGroupSize) {
      return fail(
        ErrorCode.GROUP_MAX_SIZE_REACHED,
        `The share group has reached its maximum capacity of ${this.opts.maxGroupSize} members.`,
      );
    }
    const joining = !member || req.memberEpoch === 0;
    if (!member) {
      member = {
        memberId: req.memberId,
        memberEpoch: 0,
        rackId: req.rackId,
        clientId: req.clientId,
        clientHost: req.clientHost,
        subscribedTopicNames: [],
        assignment: new Map(),
      };
      group.members.set(member.memberId, member);
      group.membershipVersion++;
    }
    if (req.rackId !== null) member.rackId = req.rackId;
    let bump = joining && member.memberEpoch === 0;
    if (req.subscribedTopicNames !== null) {
      const next = [...new Set(req.subscribedTopicNames)].sort();
      if (next.join('\u0000') !== member.subscribedTopicNames.join('\u0000')) {
        bump = true;
        group.membershipVersion++;
      }
      member.subscribedTopicNames = next;
    }
    // The target assignment from the topics as they are now (a new topic or partition shows up here).
    // This member's share of the group's partitions: the others see theirs change at their next heartbeat.
    const topics = await this.topicsOf([...group.subscribedTopics()]);
    const target = this.targetAssignment(group, topics).get(member.memberId) ?? new Map();
    const changed = !sameAssignment(target, member.assignment);
    if (bump || changed) {
      group.groupEpoch++;
      group.assignmentEpoch = group.groupEpoch;
    }
    const sendAssignment = joining || changed || member.memberEpoch !== group.groupEpoch;
    const epochBefore = member.memberEpoch;
    member.assignment = target;
    member.memberEpoch = Math.max(member.memberEpoch, group.assignmentEpoch);
    if (joining || bump || changed || member.memberEpoch !== epochBefore) this.persist(group);
    this.scheduleSessionTimeout(group.groupId, member.memberId, settings.sessionTimeoutMs);
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: settings.heartbeatIntervalMs,
      assignment: sendAssignment ? toWire(target) : null,
    };
  }

  /**
   * DeleteGroups / the admin APIs: forgets a share group without members (Kafka deletes only an
   * Empty share group). False when it has members.
   */
  deleteGroup(groupId: string): boolean {
    const group = this.groups.get(groupId);
    if (group && group.members.size > 0) return false;
    this.groups.delete(groupId);
    this.queuedWrites.delete(groupId);
    const write = this.writes
      .run(groupId, () => this.opts.storage.storeGroupMetadata(groupId, null))
      .catch((err: unknown) => {
        this.opts.logger.warn(`share group ${groupId}: deleting its stored membership failed: ${String(err)}`);
      });
    this.unsettledWrites.add(write);
    void write.finally(() => this.unsettledWrites.delete(write));
    return true;
  }

  /** ListGroups: every share group with its state. */
  listGroups(): Array<{ groupId: string; state: string }> {
    return this.allGroups().map((g) => ({ groupId: g.groupId, state: g.state }));
  }

  close(): void {
    for (const t of this.sessionTimers.values()) clearTimeout(t);
    this.sessionTimers.clear();
  }

  private async topicsOf(names: readonly string[]): Promise<Map<string, TopicView>> {
    const out = new Map<string, TopicView>();
    for (const name of names) {
      const t = await this.opts.storage.topic(name);
      if (t) out.set(name, { topicId: t.topicId, name: t.name, partitionCount: t.partitionCount });
    }
    return out;
  }

  /**
   * The group's target assignment, computed again only when its members, their subscriptions or
   * the subscribed topics changed (Kafka computes it at a group epoch bump): computed at every
   * heartbeat, the assignor's sort and deal over 200 members made a steady heartbeat cost ~290 us.
   */
  private targetAssignment(group: ShareGroup, topics: ReadonlyMap<string, TopicView>): Map<string, ShareAssignment> {
    let topicsKey = '';
    for (const t of topics.values()) topicsKey += `${t.topicId}:${t.name}:${t.partitionCount},`;
    const key = `${group.membershipVersion}|${topicsKey}`;
    const cached = this.targets.get(group);
    if (cached?.key === key) return cached.byMember;
    const byMember = simpleAssignor(group.members.values(), topics);
    this.targets.set(group, { key, byMember });
    return byMember;
  }

  private removeMember(group: ShareGroup, memberId: string, why: 'left' | 'timed out'): void {
    group.members.delete(memberId);
    group.membershipVersion++;
    group.groupEpoch++;
    group.assignmentEpoch = group.groupEpoch;
    this.clearSessionTimer(group.groupId, memberId);
    this.persist(group);
    if (why === 'timed out') this.opts.onMemberGone(group.groupId, memberId);
  }

  private clearSessionTimer(groupId: string, memberId: string): void {
    const key = `${groupId}\u0000${memberId}`;
    const t = this.sessionTimers.get(key);
    if (t) clearTimeout(t);
    this.sessionTimers.delete(key);
  }

  /** Stores the group after its earlier writes; the answer does not wait (a write queued takes later changes). */
  private persist(group: ShareGroup): void {
    if (this.queuedWrites.has(group.groupId)) return;
    this.queuedWrites.add(group.groupId);
    const write = this.writes
      .run(group.groupId, () => {
        this.queuedWrites.delete(group.groupId);
        const { sessionTimeoutMs } = this.opts.configs.known(group.groupId);
        return this.opts.storage.storeGroupMetadata(
          group.groupId,
          storedShareGroup(group, this.opts.now(), sessionTimeoutMs),
        );
      })
      .catch((err: unknown) => {
        this.opts.logger.warn(
          `share group ${group.groupId}: storing its membership failed (kept in memory; after a restart its members join again): ${String(err)}`,
        );
      });
    this.unsettledWrites.add(write);
    void write.finally(() => this.unsettledWrites.delete(write));
  }

  private scheduleSessionTimeout(groupId: string, memberId: string, sessionTimeoutMs: number): void {
    const key = `${groupId}\u0000${memberId}`;
    const old = this.sessionTimers.get(key);
    if (old) clearTimeout(old);
    const t = setTimeout(() => {
      this.sessionTimers.delete(key);
      const group = this.groups.get(groupId);
      if (!group?.members.has(memberId)) return;
      this.opts.logger.info(
        `share group ${groupId}: member ${memberId} removed after ${sessionTimeoutMs} ms without a heartbeat`,
      );
      this.removeMember(group, memberId, 'timed out');
    }, sessionTimeoutMs);
    t.unref();
    this.sessionTimers.set(key, t);
  }
}
