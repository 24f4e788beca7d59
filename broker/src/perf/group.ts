// Just enough of the classic consumer-group protocol for `perf consume --group`: FindCoordinator,
// JoinGroup (with the KIP-394 member-id round trip), SyncGroup with a range assignment computed
// when we lead, OffsetFetch for the start positions, Heartbeat while reading, OffsetCommit and
// LeaveGroup at the end. Any failure before the assignment is a GroupUnusable, and the caller
// falls back to reading partitions by assignment.
import type { KafkaClient } from '../client/client';
import { KafkaConnection } from '../client/connection';
import {
  consumerAssignment,
  consumerSubscription,
  encodeAssignment,
  encodeSubscription,
} from '../protocol/consumer-protocol';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type {
  FindCoordinatorResponse,
  HeartbeatResponse,
  JoinGroupResponse,
  OffsetCommitResponse,
  OffsetFetchResponse,
  SyncGroupResponse,
} from '../protocol/messages';

export class GroupUnusable extends Error {
  override readonly name = 'GroupUnusable';
}

const SESSION_TIMEOUT_MS = 30_000;
const HEARTBEAT_INTERVAL_MS = 3_000;

/** Kafka's RangeAssignor for one topic: members sorted by id, contiguous ranges, the first ones one longer. */
export function rangeAssign(memberIds: readonly string[], partitions: readonly number[]): Map<string, number[]> {
  const members = [...memberIds].sort();
  const sorted = [...partitions].sort((a, b) => a - b);
  const out = new Map<string, number[]>();
  const per = Math.floor(sorted.length / Math.max(1, members.length));
  const extra = sorted.length % Math.max(1, members.length);
  let at = 0;
  members.forEach((m, i) => {
    const n = per + (i < extra ? 1 : 0);
    out.set(m, sorted.slice(at, at + n));
    at += n;
  });
  return out;
}

export class GroupMember {
  private heartbeat: NodeJS.Timeout | undefined;
  /** Set if a heartbeat reported a rebalance or an error (we keep reading what we have). */
  heartbeatProblem: string | null = null;

  private constructor(
    private readonly conn: KafkaConnection,
    readonly groupId: string,
    readonly topic: string,
    readonly memberId: string,
    readonly generationId: number,
    readonly partitions: number[],
  ) {}

  /** Joins `groupId` subscribed to `topic`; resolves once the assignment is known. */
  static async join(
    client: KafkaClient,
    groupId: string,
    topic: string,
    allPartitions: readonly number[],
    clientId: string,
  ): Promise<GroupMember> {
    const boot = await client.connect();
    let conn: KafkaConnection;
    try {
      const v = boot.version(ApiKey.FindCoordinator, 0, 3);
      const fc: FindCoordinatorResponse = await boot.send(ApiKey.FindCoordinator, v, { key: groupId, keyType: 0 });
      if ((fc.errorCode ?? 0) !== ErrorCode.NONE)
        throw new GroupUnusable(
          `FindCoordinator: ${errorName(fc.errorCode!)}${fc.errorMessage ? ` (${fc.errorMessage})` : ''}`,
        );
      conn = await KafkaConnection.connect(fc.host!, fc.port!, { clientId });
    } catch (err) {
      throw err instanceof GroupUnusable ? err : new GroupUnusable((err as Error).message);
    }
    try {
      const jv = conn.version(ApiKey.JoinGroup, 0, 7);
      const subscription = encodeSubscription({ topics: [topic], userData: null });
      const joinBody = (memberId: string) => ({
        groupId,
        sessionTimeoutMs: SESSION_TIMEOUT_MS,
        rebalanceTimeoutMs: SESSION_TIMEOUT_MS,
        memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: subscription }],
        reason: null,
      });
      let join: JoinGroupResponse = await conn.send(ApiKey.JoinGroup, jv, joinBody(''));
      // KIP-394: a v4+ join without a member id is answered MEMBER_ID_REQUIRED with one to use.
      if (join.errorCode === ErrorCode.MEMBER_ID_REQUIRED)
        join = await conn.send(ApiKey.JoinGroup, jv, joinBody(join.memberId));
      if (join.errorCode !== ErrorCode.NONE) throw new GroupUnusable(`JoinGroup: ${errorName(join.errorCode)}`);
      const generationId = join.generationId ?? -1;
      let assignments: { memberId: string; assignment: Buffer }[] = [];
      if (join.leader === join.memberId) {
        const subscribed = join.members
          .filter((m) => consumerSubscription(m.metadata)?.topics.includes(topic))
          .map((m) => m.memberId);
        const ranges = rangeAssign(subscribed, allPartitions);
        assignments = join.members.map((m) => ({
          memberId: m.memberId,
          assignment: encodeAssignment({
            assignedPartitions: [{ topic, partitions: ranges.get(m.memberId) ?? [] }],
            userData: null,
          }),
        }));
      }
      const sv = conn.version(ApiKey.SyncGroup, 0, 5);
      const sync: SyncGroupResponse = await conn.send(ApiKey.SyncGroup, sv, {
        groupId,
        generationId,
        memberId: join.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments,
      });
      if (sync.errorCode !== ErrorCode.NONE) throw new GroupUnusable(`SyncGroup: ${errorName(sync.errorCode)}`);
      const mine =
        consumerAssignment(sync.assignment)?.assignedPartitions.find((t) => t.topic === topic)?.partitions ?? [];
      const member = new GroupMember(
        conn,
        groupId,
        topic,
        join.memberId,
        generationId,
        [...mine].sort((a, b) => a - b),
      );
      member.startHeartbeat();
      return member;
    } catch (err) {
      conn.close();
      throw err instanceof GroupUnusable ? err : new GroupUnusable((err as Error).message);
    }
  }

  private startHeartbeat(): void {
    const v = this.conn.version(ApiKey.Heartbeat, 0, 4);
    this.heartbeat = setInterval(() => {
      this.conn
        .send(ApiKey.Heartbeat, v, {
          groupId: this.groupId,
          generationId: this.generationId,
          memberId: this.memberId,
          groupInstanceId: null,
        })
        .then((r: HeartbeatResponse) => {
          if (r.errorCode !== ErrorCode.NONE) this.heartbeatProblem ??= `heartbeat: ${errorName(r.errorCode)}`;
        })
        .catch((err: Error) => (this.heartbeatProblem ??= `heartbeat: ${err.message}`));
    }, HEARTBEAT_INTERVAL_MS);
    this.heartbeat.unref();
  }

  /** Committed offsets of our partitions (-1 where none). */
  async committed(): Promise<Map<number, bigint>> {
    const v = this.conn.version(ApiKey.OffsetFetch, 1, 7);
    const res: OffsetFetchResponse = await this.conn.send(ApiKey.OffsetFetch, v, {
      groupId: this.groupId,
      topics: [{ name: this.topic, partitionIndexes: this.partitions }],
      requireStable: false,
    });
    const out = new Map<number, bigint>();
    for (const t of res.topics ?? [])
      for (const p of t.partitions ?? [])
        out.set(p.partitionIndex ?? -1, p.errorCode ? -1n : (p.committedOffset ?? -1n));
    return out;
  }

  async commit(positions: ReadonlyMap<number, bigint>): Promise<string | null> {
    const v = this.conn.version(ApiKey.OffsetCommit, 2, 7);
    const res: OffsetCommitResponse = await this.conn.send(ApiKey.OffsetCommit, v, {
      groupId: this.groupId,
      generationIdOrMemberEpoch: this.generationId,
      memberId: this.memberId,
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: this.topic,
          partitions: [...positions].map(([partitionIndex, committedOffset]) => ({
            partitionIndex,
            committedOffset,
            committedLeaderEpoch: -1,
            commitTimestamp: -1n,
            committedMetadata: null,
          })),
        },
      ],
    });
    const bad = res.topics.flatMap((t) => t.partitions).find((p) => p.errorCode !== ErrorCode.NONE);
    return bad ? `OffsetCommit: ${errorName(bad.errorCode)}` : null;
  }

  async leave(): Promise<void> {
    clearInterval(this.heartbeat);
    try {
      const v = this.conn.version(ApiKey.LeaveGroup, 0, 2);
      await this.conn.send(ApiKey.LeaveGroup, v, { groupId: this.groupId, memberId: this.memberId });
    } catch {
      // leaving is a courtesy; the session timeout removes us anyway
    } finally {
      this.conn.close();
    }
  }
}
