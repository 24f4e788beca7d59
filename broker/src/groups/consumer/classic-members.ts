// Classic-protocol members inside a KIP-848 consumer group (Kafka's GroupMetadataManager
// classicGroupJoinToConsumerGroup, classicGroupSyncToConsumerGroup,
// classicGroupHeartbeatToConsumerGroup, classicGroupLeaveToConsumerGroup): after an online
// upgrade, or when a classic consumer joins a consumer group with members, its JoinGroup,
// SyncGroup, Heartbeat and LeaveGroup are served here. The server-side assignor decides: JoinGroup
// moves the member one reconciliation step (its owned partitions come in its subscription) and
// answers its member epoch as the generation, with no leader; SyncGroup gives it its assigned
// partitions; Heartbeat answers REBALANCE_IN_PROGRESS when it must rejoin (a new group epoch,
// partitions to revoke, or partitions it waited for now free).
import { ErrorCode } from '../../protocol/error-codes';
import { consumerSubscription, encodeAssignment } from '../../protocol/consumer-protocol';
import { randomUuid } from '../../protocol/uuid';
import { joinError, JoinResult, SyncResult, syncError } from '../group';
import type { JoinGroupInput, LeaveResult, MemberIdentity, SyncGroupInput } from '../coordinator-options';
import type { TopicPartitions } from './assignment';
import type { ConsumerGroup } from './consumer-group';
import { ConsumerGroupCoordinator, groupFull } from './consumer-coordinator';
import { assignmentByName, protocolVersion, shouldDowngradeOnReplace } from './group-conversion';
import { ClassicMemberMetadata, ConsumerMember, MemberState, newMember } from './member';

/** The highest ConsumerProtocolAssignment version minnow writes. */
const MAX_ASSIGNMENT_VERSION = 3;

export class ConsumerClassicMembers extends ConsumerGroupCoordinator {
  /** True when classic requests for this group id go to the consumer group (it exists, with members). */
  servesClassic(groupId: string): boolean {
    return (this.groups.get(groupId)?.size ?? 0) > 0;
  }

  /** JoinGroup of a classic member; the caller has read the topics (freshTopics()) just before. */
  classicJoin(req: JoinGroupInput): JoinResult {
    const group = this.groups.get(req.groupId)!;
    const isUnknown = req.memberId === '';
    const memberId = isUnknown ? randomUuid() : req.memberId;
    if (group.size >= this.maxSize && !group.members.has(memberId))
      return this.joinRefused(req, ErrorCode.GROUP_MAX_SIZE_REACHED, groupFull(this.maxSize).message);
    const names = req.protocols.map((p) => p.name);
    if (!group.supportsClassicProtocols(req.protocolType, names))
      return this.joinRefused(
        req,
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        `Member ${memberId}'s protocols are not supported.`,
      );
    if (req.requireKnownMemberId && isUnknown && req.groupInstanceId === null)
      return joinError(ErrorCode.MEMBER_ID_REQUIRED, memberId);
    const subscription = consumerSubscription(req.protocols[0]!.metadata);
    if (!subscription)
      return this.joinRefused(
        req,
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        'the subscription is not a consumer protocol subscription',
      );
    const classic: ClassicMemberMetadata = {
      sessionTimeoutMs: req.sessionTimeoutMs,
      protocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
    };

    let member: ConsumerMember;
    let isNew = false;
    // A classic static member replacing the last consumer-protocol member makes the group classic
    // again (Kafka's classicGroupJoinToConsumerGroup, step 4).
    let replaced: ConsumerMember | undefined;
    if (req.groupInstanceId === null) {
      const existing = group.members.get(memberId);
      member = existing ?? newMember(memberId);
      isNew = existing === undefined;
    } else {
      const existing = group.staticMember(req.groupInstanceId);
      if (isUnknown) {
        if (existing) {
          if (shouldDowngradeOnReplace(group, existing.memberId, this.migrationPolicy)) replaced = existing;
          member = this.replaceStaticMember(group, existing, memberId, classic);
        } else [member, isNew] = [newMember(memberId), true];
      } else {
        if (!existing)
          return this.joinRefused(req, ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.groupInstanceId} is unknown.`);
        if (existing.memberId !== memberId)
          return this.joinRefused(
            req,
            ErrorCode.FENCED_INSTANCE_ID,
            `Instance id ${req.groupInstanceId} belongs to ${existing.memberId}.`,
          );
        member = existing;
      }
    }
    const view = this.topicsNow();
    const updated: ConsumerMember = {
      ...member,
      instanceId: req.groupInstanceId ?? member.instanceId,
      rackId: subscription.rackId ?? member.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
      subscribedTopicNames: [...new Set(subscription.topics)].sort(),
      clientId: req.clientId,
      clientHost: req.clientHost,
      classic,
    };
    const owned: TopicPartitions[] = [];
    for (const tp of subscription.ownedPartitions ?? []) {
      const t = view.byName.get(tp.topic ?? '');
      if (t) owned.push({ topicId: t.topicId, partitions: tp.partitions ?? [] });
    }
    const next = this.moveMember(group, view, member, updated, isNew, owned);
    this.persist(group); // its classic metadata (session timeout, protocols) may have changed
    this.classicTimers.cancel(group.groupId, memberId, 'join');
    this.classicTimers.schedule(group.groupId, memberId, 'sync', next.rebalanceTimeoutMs, () =>
      this.fenceIfStill(group, memberId, 'the member sent no SyncGroup within its rebalance timeout'),
    );
    this.logger.debug('classic member joined the consumer group', {
      groupId: group.groupId,
      memberId,
      memberEpoch: next.memberEpoch,
      state: next.state,
    });
    if (replaced) {
      // Kafka rebalances the classic group only when the new member's subscription differs.
      const same = replaced.subscribedTopicNames.join('\u0000') === updated.subscribedTopicNames.join('\u0000');
      this.downgrade(group, '', `static member ${replaced.memberId} replaced by classic member ${memberId}`, !same);
    }
    return {
      errorCode: ErrorCode.NONE,
      generationId: next.memberEpoch,
      protocolType: 'consumer',
      protocolName: classic.protocols[0]!.name,
      leader: '',
      memberId,
      skipAssignment: false,
      members: [],
    };
  }

  /** SyncGroup of a classic member: its assigned partitions (what the last JoinGroup reconciled). */
  classicSync(req: SyncGroupInput): SyncResult {
    const group = this.groups.get(req.groupId);
    if (!group || group.size === 0) return syncError(ErrorCode.UNKNOWN_MEMBER_ID);
    const member = this.classicMember(group, req.memberId, req.groupInstanceId);
    if (typeof member === 'number') return syncError(member);
    if (req.generationId !== member.memberEpoch) return syncError(ErrorCode.ILLEGAL_GENERATION);
    const protocol = member.classic!.protocols[0]!;
    if (
      (req.protocolType !== null && req.protocolType !== 'consumer') ||
      (req.protocolName !== null && req.protocolName !== protocol.name)
    )
      return syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    if (group.groupEpoch > member.memberEpoch && member.state !== MemberState.UNREVOKED_PARTITIONS) {
      this.scheduleJoinTimeout(group, member);
      return syncError(ErrorCode.REBALANCE_IN_PROGRESS);
    }
    this.classicTimers.cancel(group.groupId, member.memberId, 'sync');
    this.scheduleSessionTimeout(group, member.memberId);
    const assignment = encodeAssignment(
      { assignedPartitions: assignmentByName(member.assignedPartitions, this.topicsById()), userData: null },
      Math.min(protocolVersion(protocol.metadata), MAX_ASSIGNMENT_VERSION),
    );
    return { errorCode: ErrorCode.NONE, protocolType: req.protocolType, protocolName: req.protocolName, assignment };
  }

  /** Heartbeat of a classic member: REBALANCE_IN_PROGRESS when it must rejoin to move on. */
  classicHeartbeat(req: {
    groupId: string;
    generationId: number;
    memberId: string;
    groupInstanceId: string | null;
  }): number {
    const group = this.groups.get(req.groupId);
    if (!group || group.size === 0) return ErrorCode.UNKNOWN_MEMBER_ID;
    const member = this.classicMember(group, req.memberId, req.groupInstanceId);
    if (typeof member === 'number') return member;
    if (req.generationId !== member.memberEpoch) return ErrorCode.ILLEGAL_GENERATION;
    this.scheduleSessionTimeout(group, member.memberId);
    if (
      member.memberEpoch < group.groupEpoch ||
      member.state === MemberState.UNREVOKED_PARTITIONS ||
      (member.state === MemberState.UNRELEASED_PARTITIONS && !group.waitingOnUnreleasedPartition(member))
    ) {
      this.scheduleJoinTimeout(group, member);
      return ErrorCode.REBALANCE_IN_PROGRESS;
    }
    return ErrorCode.NONE;
  }

  /** LeaveGroup naming classic members (by member id, or by group.instance.id for admin removal). */
  classicLeave(groupId: string, leaving: readonly MemberIdentity[]): LeaveResult {
    const group = this.groups.get(groupId)!;
    const members = leaving.map((l) => {
      let member: ConsumerMember | undefined;
      if (l.groupInstanceId === null) member = group.members.get(l.memberId);
      else {
        member = group.staticMember(l.groupInstanceId);
        if (member && l.memberId !== '' && member.memberId !== l.memberId)
          return { ...l, errorCode: ErrorCode.FENCED_INSTANCE_ID };
      }
      if (!member || member.classic === null) return { ...l, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
      this.fenceMember(group, member.memberId, `member left the group${l.reason ? ` (${l.reason})` : ''}`);
      return { ...l, memberId: member.memberId, errorCode: ErrorCode.NONE };
    });
    return { errorCode: ErrorCode.NONE, members };
  }

  /** Kafka's validateConsumerGroupMember + throwIfMemberDoesNotUseClassicProtocol: the member, or an error code. */
  private classicMember(group: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerMember | number {
    let member: ConsumerMember | undefined;
    if (instanceId === null) member = group.members.get(memberId);
    else {
      member = group.staticMember(instanceId);
      if (member && member.memberId !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
    }
    if (!member || member.classic === null) return ErrorCode.UNKNOWN_MEMBER_ID;
    return member;
  }

  /** A member told to rejoin must do so within its rebalance timeout, or it is removed. */
  private scheduleJoinTimeout(group: ConsumerGroup, member: ConsumerMember): void {
    this.classicTimers.schedule(
      group.groupId,
      member.memberId,
      'join',
      member.rebalanceTimeoutMs,
      () => this.fenceIfStill(group, member.memberId, 'the classic member did not rejoin within its rebalance timeout'),
      true,
    );
  }

  private fenceIfStill(group: ConsumerGroup, memberId: string, reason: string): void {
    if (this.groups.get(group.groupId) === group && group.members.has(memberId))
      this.fenceMember(group, memberId, reason);
  }

  private joinRefused(req: JoinGroupInput, errorCode: number, message: string): JoinResult {
    if (this.logger.enabled('debug'))
      this.logger.debug('JoinGroup to a consumer group refused', {
        groupId: req.groupId,
        memberId: req.memberId,
        errorCode,
        message,
      });
    return joinError(errorCode, req.memberId);
  }
}
