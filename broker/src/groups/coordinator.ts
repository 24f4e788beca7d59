// The classic group coordinator (KIP-62/KIP-394/KIP-345 behaviour of Kafka's GroupCoordinator.scala),
// with this broker the coordinator of every group. Membership lives in memory; committed offsets go
// to Storage. All time comes from the injected clock and scheduler, so tests never sleep. This file
// holds the request entry points; the layers below: static-member-join.ts, rebalance.ts, group-sessions.ts.
//
// Every held JoinGroup/SyncGroup response is a promise that is always settled: by the rebalance
// completing, by an error when the member is removed, replaced or superseded, or by close().
import { randomUUID } from 'node:crypto';
import { ErrorCode, errorName } from '../protocol/error-codes';
import { StorageError } from '../storage/storage';
import { Group, JoinResult, joinError, SyncResult, syncError, validateCurrentMember } from './group';
import { GroupState } from './group-state';
import * as admin from './group-admin';
import * as offsets from './group-offsets';
import type { JoinGroupInput, LeaveResult, MemberIdentity, SyncGroupInput } from './coordinator-options';
import { StaticMemberJoin } from './static-member-join';
import { offsetFetchError } from './consumer/consumer-admin';

export { DEFAULT_INITIAL_REBALANCE_DELAY_MS } from './coordinator-options';
export type {
  GroupCoordinatorOptions,
  JoinGroupInput,
  LeaveResult,
  MemberIdentity,
  SyncGroupInput,
} from './coordinator-options';

export class GroupCoordinator extends StaticMemberJoin {
  // ---------------------------------------------------------------- JoinGroup

  async joinGroup(req: JoinGroupInput): Promise<JoinResult> {
    // A classic member joining a consumer group is placed with the topics as they are now.
    if (this.consumer.servesClassic(req.groupId)) await this.consumer.freshTopics();
    return new Promise((resolve) =>
      this.doJoin(req, (r) => {
        if (r.errorCode !== ErrorCode.NONE && this.logger.enabled('debug')) {
          this.logger.debug('JoinGroup answered with an error', {
            groupId: req.groupId,
            memberId: r.memberId,
            error: errorName(r.errorCode),
          });
        }
        resolve(r);
      }),
    );
  }

  private doJoin(req: JoinGroupInput, respond: (r: JoinResult) => void): void {
    if (this.closed) return respond(joinError(ErrorCode.NOT_COORDINATOR, req.memberId));
    if (req.groupId === '') return respond(joinError(ErrorCode.INVALID_GROUP_ID, req.memberId));
    if (req.sessionTimeoutMs < this.minSessionTimeoutMs || req.sessionTimeoutMs > this.maxSessionTimeoutMs) {
      return respond(joinError(ErrorCode.INVALID_SESSION_TIMEOUT, req.memberId));
    }
    const isUnknownMember = req.memberId === '';
    // A consumer group (KIP-848) with members serves classic members itself (Kafka's
    // classicGroupJoinToConsumerGroup); an empty one is taken over by the classic group.
    if (this.consumer.servesClassic(req.groupId)) return respond(this.consumer.classicJoin(req));
    this.consumer.dropEmptyGroup(req.groupId);
    let group = this.groups.get(req.groupId);
    if (!group) {
      // A known member id for a group we do not have (e.g. after a restart): the client resets its id.
      if (!isUnknownMember) return respond(joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId));
      group = new Group(req.groupId);
      this.groups.set(req.groupId, group);
    }
    if (isUnknownMember) this.joinNewMember(group, req, respond);
    else this.joinCurrentMember(group, req, respond);
    this.maybeCompleteJoin(group);
    this.maybeForget(group);
  }

  private joinNewMember(group: Group, req: JoinGroupInput, respond: (r: JoinResult) => void): void {
    if (group.is(GroupState.Dead)) return respond(joinError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!group.supportsProtocols(req.protocolType, req.protocols))
      return respond(joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    const memberId = `${req.groupInstanceId ?? req.clientId}-${randomUUID()}`;
    if (req.groupInstanceId !== null) return this.joinStaticMember(group, req, memberId, respond);
    if (req.requireKnownMemberId) {
      // KIP-394: hand out the id first, so a client that times out and retries does not leave ghosts.
      this.addPendingMember(group, memberId, req.sessionTimeoutMs);
      return respond(joinError(ErrorCode.MEMBER_ID_REQUIRED, memberId));
    }
    this.addMemberAndRebalance(group, req, memberId, respond);
  }

  private joinCurrentMember(group: Group, req: JoinGroupInput, respond: (r: JoinResult) => void): void {
    if (group.is(GroupState.Dead)) return respond(joinError(ErrorCode.COORDINATOR_NOT_AVAILABLE, req.memberId));
    if (!group.supportsProtocols(req.protocolType, req.protocols))
      return respond(joinError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, req.memberId));
    const pending = group.pendingMembers.get(req.memberId);
    if (pending !== undefined) {
      // A member back from MEMBER_ID_REQUIRED. Static members are never pending.
      if (req.groupInstanceId !== null) return respond(joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId));
      this.timers.clearTimeout(pending);
      group.pendingMembers.delete(req.memberId);
      return this.addMemberAndRebalance(group, req, req.memberId, respond);
    }
    const error = validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (error !== null) return respond(joinError(error, req.memberId));
    const member = group.get(req.memberId)!;
    switch (group.state) {
      case GroupState.PreparingRebalance:
        return this.updateMemberAndRebalance(group, member, req, respond, 'member rejoined');
      case GroupState.CompletingRebalance:
        // It lost the JoinGroup response: the same metadata gets the same answer again.
        if (member.matches(req.protocols))
          return respond(this.currentJoinResult(group, member, group.isLeader(member.memberId)));
        return this.updateMemberAndRebalance(
          group,
          member,
          req,
          respond,
          `member ${member.memberId} changed its metadata`,
        );
      case GroupState.Stable:
        // The leader rejoining (e.g. its subscription's topics changed) or new metadata: rebalance.
        if (group.isLeader(member.memberId) || !member.matches(req.protocols)) {
          return this.updateMemberAndRebalance(
            group,
            member,
            req,
            respond,
            `${group.isLeader(member.memberId) ? 'leader' : 'member'} ${member.memberId} rejoined${req.reason ? ` (${req.reason})` : ''}`,
          );
        }
        return respond(this.currentJoinResult(group, member, false));
      default:
        return respond(joinError(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId));
    }
  }

  // ---------------------------------------------------------------- SyncGroup

  syncGroup(req: SyncGroupInput): Promise<SyncResult> {
    return new Promise((resolve) => this.doSync(req, resolve));
  }

  private doSync(req: SyncGroupInput, respond: (r: SyncResult) => void): void {
    if (this.closed) return respond(syncError(ErrorCode.NOT_COORDINATOR));
    if (req.groupId === '') return respond(syncError(ErrorCode.INVALID_GROUP_ID));
    if (this.consumer.group(req.groupId)) return respond(this.consumer.classicSync(req));
    const group = this.groups.get(req.groupId);
    if (!group) return respond(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    if (group.is(GroupState.Dead)) return respond(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    const error = validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (error !== null) return respond(syncError(error));
    if (req.generationId !== group.generationId) return respond(syncError(ErrorCode.ILLEGAL_GENERATION));
    if (
      (req.protocolType !== null && req.protocolType !== group.protocolType) ||
      (req.protocolName !== null && req.protocolName !== group.protocolName)
    ) {
      return respond(syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    }
    const member = group.get(req.memberId)!;
    switch (group.state) {
      case GroupState.PreparingRebalance:
        return respond(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      case GroupState.CompletingRebalance: {
        this.setSyncWaiter(member, respond);
        this.syncReceived(group, member.memberId);
        if (!group.isLeader(member.memberId)) return;
        const assignments = new Map(req.assignments.map((a) => [a.memberId, a.assignment]));
        for (const m of group.members.values()) {
          // Members the leader left out get an empty assignment, as in Kafka.
          m.assignment = assignments.get(m.memberId) ?? Buffer.alloc(0);
          const waiter = m.syncWaiter;
          m.syncWaiter = null;
          waiter?.({
            errorCode: ErrorCode.NONE,
            protocolType: group.protocolType,
            protocolName: group.protocolName,
            assignment: m.assignment,
          });
          if (waiter) this.scheduleHeartbeat(group, m);
        }
        group.transitionTo(GroupState.Stable);
        this.persist(group);
        this.logger.info('group is stable', {
          groupId: group.groupId,
          generationId: group.generationId,
          members: group.size,
        });
        return;
      }
      case GroupState.Stable:
        this.syncReceived(group, member.memberId);
        this.scheduleHeartbeat(group, member);
        return respond({
          errorCode: ErrorCode.NONE,
          protocolType: group.protocolType,
          protocolName: group.protocolName,
          assignment: member.assignment,
        });
      default:
        return respond(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  private syncReceived(group: Group, memberId: string): void {
    group.pendingSync.delete(memberId);
    if (group.pendingSync.size === 0) this.clearTimer(group, 'syncTimer');
  }

  // ---------------------------------------------------------------- Heartbeat, LeaveGroup

  heartbeat(req: { groupId: string; generationId: number; memberId: string; groupInstanceId: string | null }): number {
    if (this.closed) return ErrorCode.NOT_COORDINATOR;
    if (req.groupId === '') return ErrorCode.INVALID_GROUP_ID;
    if (this.consumer.group(req.groupId)) return this.consumer.classicHeartbeat(req);
    const group = this.groups.get(req.groupId);
    if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is(GroupState.Dead)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const error = validateCurrentMember(group, req.memberId, req.groupInstanceId);
    if (error !== null) return error;
    if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    const member = group.get(req.memberId)!;
    switch (group.state) {
      case GroupState.Stable:
      case GroupState.CompletingRebalance:
        // Clients may heartbeat between their JoinGroup and SyncGroup responses: a normal heartbeat.
        this.scheduleHeartbeat(group, member);
        return ErrorCode.NONE;
      case GroupState.PreparingRebalance:
        this.scheduleHeartbeat(group, member);
        return ErrorCode.REBALANCE_IN_PROGRESS;
      default:
        return ErrorCode.UNKNOWN_MEMBER_ID;
    }
  }

  /** LeaveGroup: v0-2 name one member by id; v3+ a batch, by id and/or group.instance.id. */
  leaveGroup(groupId: string, leaving: readonly MemberIdentity[]): LeaveResult {
    if (this.closed) return { errorCode: ErrorCode.NOT_COORDINATOR, members: [] };
    if (groupId === '') return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    if (this.consumer.servesClassic(groupId)) return this.consumer.classicLeave(groupId, leaving);
    const group = this.groups.get(groupId);
    if (!group)
      return {
        errorCode: ErrorCode.NONE,
        members: leaving.map((m) => ({ ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })),
      };
    if (group.is(GroupState.Dead)) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    const members = leaving.map((l) => ({ ...l, errorCode: this.leaveOne(group, l) }));
    this.maybeForget(group);
    return { errorCode: ErrorCode.NONE, members };
  }

  private leaveOne(group: Group, l: MemberIdentity): number {
    const why = `member left the group${l.reason ? ` (${l.reason})` : ''}`;
    if (l.memberId === '') {
      // Administrative removal by group.instance.id (KIP-345).
      const current = l.groupInstanceId === null ? undefined : group.staticMemberId(l.groupInstanceId);
      if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      this.removeMemberAndUpdateGroup(group, group.get(current)!, why);
      return ErrorCode.NONE;
    }
    const pending = group.pendingMembers.get(l.memberId);
    if (pending !== undefined) {
      this.timers.clearTimeout(pending);
      group.pendingMembers.delete(l.memberId);
      this.maybeCompleteJoin(group);
      return ErrorCode.NONE;
    }
    const error = validateCurrentMember(group, l.memberId, l.groupInstanceId);
    if (error !== null) return error;
    this.removeMemberAndUpdateGroup(group, group.get(l.memberId)!, why);
    return ErrorCode.NONE;
  }

  // ---------------------------------------------------------------- offsets and admin

  commitOffsets(req: offsets.CommitInput): Promise<number[]> {
    return offsets.commitOffsets(this, req);
  }

  fetchOffsets(groupId: string, topics: offsets.FetchTopic[] | null): Promise<offsets.FetchResult> {
    return offsets.fetchOffsets(this, groupId, topics);
  }

  /**
   * OffsetFetch v9+ naming a member of a KIP-848 consumer group: UNKNOWN_MEMBER_ID or
   * STALE_MEMBER_EPOCH unless it is one at that epoch; NONE for other groups.
   */
  offsetFetchMemberError(groupId: string, memberId: string | null, memberEpoch: number): number {
    const group = this.consumer.group(groupId);
    return group ? offsetFetchError(group, memberId, memberEpoch) : ErrorCode.NONE;
  }

  deleteOffsets(groupId: string, topics: offsets.FetchTopic[]): Promise<offsets.DeleteOffsetsResult> {
    return offsets.deleteOffsets(this, groupId, topics);
  }

  listGroups(statesFilter: readonly string[] = [], typesFilter: readonly string[] = []): Promise<admin.ListedGroup[]> {
    return admin.listGroups(this, statesFilter, typesFilter);
  }

  describeGroup(groupId: string): Promise<admin.DescribedGroup> {
    return admin.describeGroup(this, groupId);
  }

  /** DeleteGroups: only Empty groups (else NON_EMPTY_GROUP); deletes their committed offsets. */
  async deleteGroups(groupIds: readonly string[]): Promise<{ groupId: string; errorCode: number }[]> {
    const out = [];
    for (const groupId of groupIds)
      out.push({ groupId, errorCode: await this.offsetWrites.run(groupId, () => this.deleteGroup(groupId)) });
    return out;
  }

  /**
   * As Kafka's handleDeleteGroups: an Empty group turns Dead (in memory, at once, so no member
   * joins it meanwhile), then its offsets go. A group known only by its offsets is looked up first.
   */
  private async deleteGroup(groupId: string): Promise<number> {
    if (this.closed) return ErrorCode.NOT_COORDINATOR;
    if (this.consumer.group(groupId)) {
      if (!this.consumer.dropEmptyGroup(groupId)) return ErrorCode.NON_EMPTY_GROUP;
      if (!(await this.deleteStoredOffsets(groupId))) return ErrorCode.NOT_COORDINATOR;
      this.logger.info('consumer group deleted', { groupId });
      return ErrorCode.NONE;
    }
    const group = this.groups.get(groupId);
    if (group) {
      if (!group.is(GroupState.Empty))
        return group.is(GroupState.Dead) ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.NON_EMPTY_GROUP;
      for (const t of group.pendingMembers.values()) this.timers.clearTimeout(t);
      group.pendingMembers.clear();
      this.clearTimer(group, 'joinTimer');
      this.clearTimer(group, 'syncTimer');
      group.transitionTo(GroupState.Dead);
      this.groups.delete(groupId);
      // A failed delete leaves the offsets: the group is then an Empty one known by its offsets.
      if (!(await this.deleteStoredOffsets(groupId))) return ErrorCode.NOT_COORDINATOR;
      this.logger.info('group deleted', { groupId });
      return ErrorCode.NONE;
    }
    let stored;
    try {
      stored = await this.storage.fetchOffsets(groupId);
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      this.logger.error("reading a group's offsets failed", { groupId, err });
      return ErrorCode.NOT_COORDINATOR;
    }
    if (stored.length === 0) return ErrorCode.GROUP_ID_NOT_FOUND;
    // A member may have joined while the offsets were read: the group is not empty any more.
    if (this.groups.get(groupId) && !this.groups.get(groupId)!.is(GroupState.Empty)) return ErrorCode.NON_EMPTY_GROUP;
    if (!(await this.deleteStoredOffsets(groupId))) return ErrorCode.NOT_COORDINATOR;
    this.logger.info('group deleted', { groupId });
    return ErrorCode.NONE;
  }

  /** Its offsets and stored membership; false when the storage failed (a full disk): NOT_COORDINATOR. */
  private async deleteStoredOffsets(groupId: string): Promise<boolean> {
    try {
      await this.groupWrites.run(groupId, () => this.storage.storeGroupMetadata(groupId, null));
      await this.storage.deleteOffsets(groupId);
      return true;
    } catch (err) {
      if (!(err instanceof StorageError)) throw err;
      this.logger.error("deleting a group's offsets failed", { groupId, err });
      return false;
    }
  }

  // ---------------------------------------------------------------- shutdown

  /**
   * Clears every timer and answers every held JoinGroup/SyncGroup with NOT_COORDINATOR (clients look
   * for the coordinator again), so the server can drain and stop at once. Later requests get
   * NOT_COORDINATOR too.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.consumer.close();
    for (const groupId of [...this.groups.keys()]) this.unload(groupId);
  }

  /**
   * Forgets a group's membership (its coordination moved to another broker sharing the database,
   * src/cluster): held JoinGroup/SyncGroup are answered NOT_COORDINATOR and its timers stop, so the
   * members find the new coordinator and rejoin there. Committed offsets are in storage, untouched.
   */
  unload(groupId: string): void {
    // Read the stored membership again when the group comes back to this broker.
    this.loads.delete(groupId);
    this.consumer.unload(groupId);
    this.share?.unload(groupId);
    this.dropGroup(groupId, ErrorCode.NOT_COORDINATOR);
  }
}
