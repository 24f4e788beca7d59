// The share-group coordinator (KIP-932): ShareGroupHeartbeat (join, epochs, the simple assignor,
// leave, session timeout), ShareGroupDescribe and the groups ListGroups shows as type "share".
// Kafka's GroupMetadataManager.shareGroupHeartbeat, without its revocation step (share members hold
// partitions together). The delivery state is in share-partitions.ts; a member that leaves or times
// out gives its acquired records back there.
import { ErrorCode } from '../../protocol/error-codes';
import type { Logger } from '../../logger';
import type { Storage } from '../../storage/storage';
import { simpleAssignor } from './share-assignor';
import { ShareGroup, sameAssignment, type ShareAssignment, type TopicView } from './share-group';

export interface ShareCoordinatorOptions {
  storage: Storage;
  logger: Logger;
  now: () => number;
  /** group.share.session.timeout.ms (Kafka 45 s). */
  sessionTimeoutMs: number;
  /** group.share.heartbeat.interval.ms (Kafka 5 s). */
  heartbeatIntervalMs: number;
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

  constructor(private readonly opts: ShareCoordinatorOptions) {}

  group(groupId: string): ShareGroup | undefined {
    return this.groups.get(groupId);
  }

  allGroups(): ShareGroup[] {
    return [...this.groups.values()];
  }

  /** Whether `memberId` is a member of the share group now (ShareFetch checks it). */
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
    }
    if (req.rackId !== null) member.rackId = req.rackId;
    let bump = joining && member.memberEpoch === 0;
    if (req.subscribedTopicNames !== null) {
      const next = [...new Set(req.subscribedTopicNames)].sort();
      if (next.join('\u0000') !== member.subscribedTopicNames.join('\u0000')) bump = true;
      member.subscribedTopicNames = next;
    }
    // The target assignment from the topics as they are now (a new topic or partition shows up here).
    // This member's share of the group's partitions: the others see theirs change at their next heartbeat.
    const topics = await this.topicsOf([...group.subscribedTopics()]);
    const target = simpleAssignor(group.members.values(), topics).get(member.memberId) ?? new Map();
    const changed = !sameAssignment(target, member.assignment);
    if (bump || changed) {
      group.groupEpoch++;
      group.assignmentEpoch = group.groupEpoch;
    }
    const sendAssignment = joining || changed || member.memberEpoch !== group.groupEpoch;
    member.assignment = target;
    member.memberEpoch = Math.max(member.memberEpoch, group.assignmentEpoch);
    this.scheduleSessionTimeout(group.groupId, member.memberId);
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      heartbeatIntervalMs: this.opts.heartbeatIntervalMs,
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

  private removeMember(group: ShareGroup, memberId: string, why: 'left' | 'timed out'): void {
    group.members.delete(memberId);
    group.groupEpoch++;
    group.assignmentEpoch = group.groupEpoch;
    const key = `${group.groupId}\u0000${memberId}`;
    const t = this.sessionTimers.get(key);
    if (t) clearTimeout(t);
    this.sessionTimers.delete(key);
    if (why === 'timed out') this.opts.onMemberGone(group.groupId, memberId);
  }

  private scheduleSessionTimeout(groupId: string, memberId: string): void {
    const key = `${groupId}\u0000${memberId}`;
    const old = this.sessionTimers.get(key);
    if (old) clearTimeout(old);
    const t = setTimeout(() => {
      this.sessionTimers.delete(key);
      const group = this.groups.get(groupId);
      if (!group?.members.has(memberId)) return;
      this.opts.logger.info(
        `share group ${groupId}: member ${memberId} removed after ${this.opts.sessionTimeoutMs} ms without a heartbeat`,
      );
      this.removeMember(group, memberId, 'timed out');
    }, this.opts.sessionTimeoutMs);
    t.unref();
    this.sessionTimers.set(key, t);
  }
}
