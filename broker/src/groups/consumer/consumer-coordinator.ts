// The KIP-848 consumer group coordinator (Kafka's GroupMetadataManager.consumerGroupHeartbeat and
// friends): each ConsumerGroupHeartbeat (1) creates or updates the member, bumping the group epoch
// when its subscription (or what the subscriptions resolve to) changed, (2) computes the target
// assignment for a new group epoch with the server-side assignor, and (3) moves the member one
// step toward its target (reconcile.ts), answering its epoch and, when it changed or the request
// was a full one, its assignment. The lower layer (consumer-sessions.ts) holds timers and storage.
import { ErrorCode } from '../../protocol/error-codes';
import { randomUuid } from '../../protocol/uuid';
import { assignmentsEqual, EMPTY_ASSIGNMENT, toTopicPartitions } from './assignment';
import { ConsumerGroup } from './consumer-group';
import type { HeartbeatInput, HeartbeatResult } from './consumer-options';
import { checkMemberEpoch, checkRequest, Refusal } from './heartbeat-validation';
import {
  ConsumerMember,
  isReconciledTo,
  JOIN_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  MemberState,
  newMember,
  sameSubscription,
} from './member';
import { reconcile } from './reconcile';
import { consumerGroupFromClassic, upgradeRefusal } from './group-conversion';
import type { TopicPartitions } from './assignment';
import { ConsumerSessions } from './consumer-sessions';
import type { TopicsView } from './topics-view';

export { ConsumerGroupState } from './consumer-group';

export class ConsumerGroupCoordinator extends ConsumerSessions {
  async heartbeat(req: HeartbeatInput): Promise<HeartbeatResult> {
    if (this.closed) return this.refused(req, { errorCode: ErrorCode.NOT_COORDINATOR, message: 'coordinator closed' });
    const refusal = checkRequest(
      req,
      this.assignors.map((a) => a.name),
    );
    if (refusal) return this.refused(req, refusal);
    const view = await this.topics();
    await this.loadGroupSettings(req.groupId);
    if (this.closed) return this.refused(req, { errorCode: ErrorCode.NOT_COORDINATOR, message: 'coordinator closed' });
    if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH)
      return this.leave(req);
    return this.heartbeatNow(req, view);
  }

  private refused(req: HeartbeatInput, r: Refusal): HeartbeatResult {
    if (this.logger.enabled('debug'))
      this.logger.debug('ConsumerGroupHeartbeat refused', {
        groupId: req.groupId,
        memberId: req.memberId,
        memberEpoch: req.memberEpoch,
        errorCode: r.errorCode,
        message: r.message,
      });
    return {
      errorCode: r.errorCode,
      errorMessage: r.message,
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
      assignment: null,
    };
  }

  private heartbeatNow(req: HeartbeatInput, view: TopicsView): HeartbeatResult {
    const joining = req.memberEpoch === JOIN_GROUP_MEMBER_EPOCH;
    const group = this.groupFor(req.groupId, joining, view);
    if ('errorCode' in group) return this.refused(req, group);
    const memberId = req.memberId === '' ? randomUuid() : req.memberId;
    if (group.size >= this.maxSize && !group.members.has(memberId)) return this.refused(req, groupFull(this.maxSize));
    const found = this.memberFor(group, memberId, req);
    if ('errorCode' in found) return this.refused(req, found);
    const { member, isNew } = found;

    // 1. The member with what the request changed (null / -1 fields: unchanged).
    const updated: ConsumerMember = {
      ...member,
      instanceId: req.instanceId ?? member.instanceId,
      rackId: req.rackId ?? member.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
      serverAssignor: req.serverAssignor ?? member.serverAssignor,
      subscribedTopicNames:
        req.subscribedTopicNames !== null ? [...new Set(req.subscribedTopicNames)].sort() : member.subscribedTopicNames,
      subscribedTopicRegex:
        req.subscribedTopicRegex !== null
          ? req.subscribedTopicRegex === ''
            ? null
            : req.subscribedTopicRegex
          : member.subscribedTopicRegex,
      clientId: req.clientId,
      clientHost: req.clientHost,
    };
    const next = this.moveMember(group, view, member, updated, isNew, req.topicPartitions);
    const full =
      joining ||
      (req.rebalanceTimeoutMs !== -1 &&
        (req.subscribedTopicNames !== null || req.subscribedTopicRegex !== null) &&
        req.topicPartitions !== null);
    const assignmentChanged = !assignmentsEqual(member.assignedPartitions, next.assignedPartitions);
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId,
      memberEpoch: next.memberEpoch,
      heartbeatIntervalMs: this.settingsOf(group.groupId).heartbeatIntervalMs,
      assignment: full || assignmentChanged ? { topicPartitions: toTopicPartitions(next.assignedPartitions) } : null,
    };
  }

  /**
   * Steps 1-3 of a heartbeat (or a classic member's JoinGroup, classic-members.ts): stores the
   * updated member, bumps the group epoch if what it subscribes to changed, computes the target
   * assignment of a new epoch, and moves the member one reconciliation step; returns the member.
   */
  protected moveMember(
    group: ConsumerGroup,
    view: TopicsView,
    member: ConsumerMember,
    updated: ConsumerMember,
    isNew: boolean,
    owned: readonly TopicPartitions[] | null,
  ): ConsumerMember {
    const memberId = updated.memberId;
    group.updateMember(updated);
    const bumped = this.refreshSubscriptions(group, view, isNew || !sameSubscription(member, updated));
    if (bumped)
      this.logger.info('consumer group epoch bumped', {
        groupId: group.groupId,
        groupEpoch: group.groupEpoch,
        memberId,
        why: isNew ? 'member joined' : sameSubscription(member, updated) ? 'topics changed' : 'subscription changed',
      });

    // 2. A new target assignment for a new group epoch.
    if (group.groupEpoch > group.assignmentEpoch) this.computeTargetAssignment(group);

    // 3. One reconciliation step.
    let next = updated;
    if (!isReconciledTo(updated, group.assignmentEpoch)) {
      next = reconcile(updated, {
        targetAssignmentEpoch: group.assignmentEpoch,
        targetAssignment: group.targetAssignment.get(memberId) ?? EMPTY_ASSIGNMENT,
        currentPartitionEpoch: (topicId, p) => group.currentPartitionEpoch(topicId, p),
        ownedTopicPartitions: owned,
      });
      if (next !== updated) {
        group.updateMember(next);
        if (next.state === MemberState.UNREVOKED_PARTITIONS)
          this.scheduleRebalanceTimeout(group, memberId, next.memberEpoch, next.rebalanceTimeoutMs);
        else this.cancelRebalanceTimeout(group.groupId, memberId);
      }
    }
    this.scheduleSessionTimeout(group, memberId);
    if (isNew || bumped || next !== updated || !sameDescription(member, updated)) this.persist(group);
    return next;
  }

  /**
   * The consumer group, created for a joining member. A classic group of the same id is taken
   * over: an empty one at once, one with members by an online upgrade (group-conversion.ts) when
   * the policy, its protocol type and the size limit allow; otherwise GROUP_ID_NOT_FOUND, as
   * Kafka says "not a consumer group".
   */
  private groupFor(groupId: string, create: boolean, view: TopicsView): ConsumerGroup | Refusal {
    const classicState = this.classic.classicGroupState(groupId);
    if (classicState === 'active') return create ? this.upgrade(groupId, view) : notConsumerGroup(groupId, null);
    const existing = this.groups.get(groupId);
    if (existing) return existing;
    if (!create)
      // A member of a group this coordinator does not have (deleted, or never stored): it rejoins.
      return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, message: `Consumer group ${groupId} not found.` };
    if (classicState === 'empty') {
      this.classic.dropEmptyClassicGroup(groupId);
      this.logger.info('empty classic group converted to a consumer group', { groupId });
    }
    const group = new ConsumerGroup(groupId);
    this.groups.set(groupId, group);
    return group;
  }

  /** Kafka's convertToConsumerGroup: the classic group's members carry on as classic-protocol members. */
  private upgrade(groupId: string, view: TopicsView): ConsumerGroup | Refusal {
    const classic = this.classic.classicGroup(groupId)!;
    const refusal = upgradeRefusal(classic, this.migrationPolicy, this.maxSize);
    if (refusal !== null) return notConsumerGroup(groupId, refusal);
    // The joining member would exceed the limit: refused before anything changes.
    if (classic.size >= this.maxSize) return groupFull(this.maxSize);
    let group: ConsumerGroup;
    try {
      group = consumerGroupFromClassic(classic, view);
    } catch (err) {
      return notConsumerGroup(groupId, (err as Error).message);
    }
    this.classic.takeClassicGroup(groupId);
    this.groups.set(groupId, group);
    for (const m of group.members.values()) this.scheduleSessionTimeout(group, m.memberId);
    this.persist(group);
    this.logger.info('classic group upgraded to a consumer group', {
      groupId,
      groupEpoch: group.groupEpoch,
      members: group.size,
    });
    return group;
  }

  private memberFor(
    group: ConsumerGroup,
    memberId: string,
    req: HeartbeatInput,
  ): { member: ConsumerMember; isNew: boolean } | Refusal {
    const joining = req.memberEpoch === JOIN_GROUP_MEMBER_EPOCH;
    const existing = group.members.get(memberId);
    if (req.instanceId === null || (joining && existing)) {
      if (!existing) {
        if (joining) return { member: newMember(memberId), isNew: true };
        return {
          errorCode: ErrorCode.UNKNOWN_MEMBER_ID,
          message: `Member ${memberId} is not a member of group ${group.groupId}.`,
        };
      }
      // A known member id with epoch 0 (Kafka 4 clients keep their id, KIP-1082) is checked as any
      // epoch: accepted as the previous one (e.g. its answer was lost), else FENCED_MEMBER_EPOCH.
      const bad = checkMemberEpoch(existing, req.memberEpoch, req.topicPartitions);
      return bad ?? { member: existing, isNew: false };
    }
    const staticMember = group.staticMember(req.instanceId);
    if (joining) {
      if (!staticMember) return { member: newMember(memberId), isNew: true };
      // A classic-protocol instance is replaced at once (its process moved to the consumer protocol).
      if (staticMember.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH && staticMember.classic === null)
        return {
          errorCode: ErrorCode.UNRELEASED_INSTANCE_ID,
          message: `Static member ${memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${staticMember.memberId} member.`,
        };
      // The static member is back (new process, new member id): it takes over the old member's
      // place and target assignment, without a new group epoch, and gets its partitions again.
      return { member: this.replaceStaticMember(group, staticMember, memberId, null), isNew: false };
    }
    if (!staticMember)
      return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, message: `Instance id ${req.instanceId} is unknown.` };
    if (staticMember.memberId !== memberId)
      return {
        errorCode: ErrorCode.FENCED_INSTANCE_ID,
        message: `Static member ${memberId} with instance id ${req.instanceId} was fenced by member ${staticMember.memberId}.`,
      };
    const bad = checkMemberEpoch(staticMember, req.memberEpoch, req.topicPartitions);
    return bad ?? { member: staticMember, isNew: false };
  }

  /**
   * A static member back as a new process (new member id, epoch 0): it takes over the old
   * member's place and target assignment without a new group epoch. `classic`: the protocol the
   * new process speaks (its classic metadata, or null for the consumer protocol).
   */
  protected replaceStaticMember(
    group: ConsumerGroup,
    old: ConsumerMember,
    memberId: string,
    classic: ConsumerMember['classic'],
  ): ConsumerMember {
    const replacement: ConsumerMember = { ...old, memberId, memberEpoch: 0, previousMemberEpoch: 0, classic };
    const target = group.targetAssignment.get(old.memberId);
    group.removeMember(old.memberId);
    this.clearMemberTimers(group.groupId, old.memberId);
    if (target) group.targetAssignment.set(memberId, target);
    this.logger.info('static member rejoined the consumer group', {
      groupId: group.groupId,
      instanceId: old.instanceId,
      memberId,
      replaced: old.memberId,
      protocol: classic === null ? 'consumer' : 'classic',
    });
    return replacement;
  }

  /** Epoch -1: the member leaves (its partitions move on); -2: a static member will be back. */
  private leave(req: HeartbeatInput): HeartbeatResult {
    const group = this.groups.get(req.groupId);
    if (!group)
      return this.refused(req, {
        errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
        message: `Consumer group ${req.groupId} not found.`,
      });
    let member: ConsumerMember | undefined;
    if (req.instanceId === null) {
      member = group.members.get(req.memberId);
      if (!member)
        return this.refused(req, {
          errorCode: ErrorCode.UNKNOWN_MEMBER_ID,
          message: `Member ${req.memberId} is not a member of group ${req.groupId}.`,
        });
    } else {
      member = group.staticMember(req.instanceId);
      if (!member)
        return this.refused(req, {
          errorCode: ErrorCode.UNKNOWN_MEMBER_ID,
          message: `Instance id ${req.instanceId} is unknown.`,
        });
      if (member.memberId !== req.memberId)
        return this.refused(req, {
          errorCode: ErrorCode.FENCED_INSTANCE_ID,
          message: `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${member.memberId}.`,
        });
    }
    const answer = (memberEpoch: number): HeartbeatResult => ({
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      // Kept with its partitions until it rejoins or its session times out (KIP-848 static members).
      group.updateMember({
        ...member,
        memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH,
        partitionsPendingRevocation: new Map(),
      });
      this.cancelRebalanceTimeout(group.groupId, member.memberId);
      this.persist(group);
      this.logger.info('static member temporarily left the consumer group', {
        groupId: group.groupId,
        memberId: member.memberId,
        instanceId: req.instanceId,
      });
      return answer(LEAVE_GROUP_STATIC_MEMBER_EPOCH);
    }
    this.fenceMember(group, member.memberId, 'member left the group');
    return answer(LEAVE_GROUP_MEMBER_EPOCH);
  }
}

function notConsumerGroup(groupId: string, why: string | null): Refusal {
  return {
    errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
    message: `Group ${groupId} is not a consumer group${why === null ? '' : `: ${why}`}.`,
  };
}

export function groupFull(maxSize: number): Refusal {
  return {
    errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED,
    message: `The consumer group has reached its maximum capacity of ${maxSize} members (group.consumer.max.size).`,
  };
}

/** Fields a heartbeat may change that ConsumerGroupDescribe shows (stored when they change). */
function sameDescription(a: ConsumerMember, b: ConsumerMember): boolean {
  return (
    a.clientId === b.clientId &&
    a.clientHost === b.clientHost &&
    a.rackId === b.rackId &&
    a.instanceId === b.instanceId &&
    a.rebalanceTimeoutMs === b.rebalanceTimeoutMs &&
    a.serverAssignor === b.serverAssignor
  );
}
