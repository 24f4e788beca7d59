// `minnow group list|describe|delete|reset-offsets`: consumer-group admin over the Kafka protocol
// (FindCoordinator, ListGroups, DescribeGroups or ConsumerGroupDescribe, OffsetFetch, OffsetCommit,
// DeleteGroups), so it works against minnow or any Kafka broker. Output is JSON, like `minnow topic`.
import { KafkaClient } from '../client/client';
import { KafkaClientError, KafkaConnection } from '../client/connection';
import { consumerAssignment, consumerSubscription } from '../protocol/consumer-protocol';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type {
  DeleteGroupsResponse,
  DescribeGroupsResponse,
  FindCoordinatorResponse,
  ListGroupsResponse,
  MetadataResponse,
  OffsetCommitResponse,
  OffsetFetchResponse,
} from '../protocol/messages';
import { bootstrapFrom, parse, UsageError } from '../args';
import { connectOptionsOf } from '../client-auth';
import { DescribedMemberForCli, describeConsumerProtocolGroup } from './consumer-group-describe';
import { describeShareGroup } from './share-group-describe';

const USAGE = `usage:
  minnow group list                  (JSON array of {groupId, state, protocolType, groupType})
  minnow group describe GROUP        (JSON: type (classic, consumer (KIP-848) or share (KIP-932)),
                                      state, members with their assignments, and per partition
                                      the committed offset, end offset and lag; for a share group
                                      the start offset, end offset and records from the start on)
  minnow group delete GROUP          (only a group without members; deletes its committed offsets)
  minnow group reset-offsets GROUP --topic TOPIC (--to-earliest | --to-latest | --to-offset N) [--dry-run]
                                     (only while the group has no members)
options: --bootstrap-server HOST:PORT (default MINNOW_BOOTSTRAP_SERVER or localhost:9092)`;

export interface GroupCommandIo {
  bootstrap: string;
  out: (line: string) => void;
}

/** `minnow group ...` as wired in main.ts: bootstrap from --bootstrap-server, env or the default. */
export function groupCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  return runGroupCommand(argv, { bootstrap: bootstrapFrom(undefined, process.env), out });
}

/** Runs one group command; `--bootstrap-server` in argv overrides io.bootstrap. Returns the exit code. */
export async function runGroupCommand(argv: string[], io: GroupCommandIo): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      topic: { type: 'string', short: 't' },
      'to-earliest': { type: 'boolean' },
      'to-latest': { type: 'boolean' },
      'to-offset': { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
    USAGE,
  );
  const [action, group] = positionals;
  if (values.help || !action) {
    io.out(USAGE);
    return values.help ? 0 : 2;
  }
  const needGroup = () => {
    if (!group) throw new UsageError(`group ${action} needs a group id\n\n${USAGE}`);
    return group;
  };
  const admin = new GroupAdmin(
    new KafkaClient((values['bootstrap-server'] as string | undefined) ?? io.bootstrap, connectOptionsOf(values)),
  );
  try {
    switch (action) {
      case 'list':
        io.out(JSON.stringify(await admin.list(), null, 2));
        return 0;
      case 'describe':
        io.out(JSON.stringify(await admin.describe(needGroup()), null, 2));
        return 0;
      case 'delete':
        await admin.delete(needGroup());
        io.out(JSON.stringify({ deleted: group }));
        return 0;
      case 'reset-offsets': {
        const target = resetTarget(values);
        const topic = values.topic as string | undefined;
        if (!topic) throw new UsageError(`reset-offsets needs --topic TOPIC\n\n${USAGE}`);
        const offsets = await admin.resetOffsets(needGroup(), topic, target, values['dry-run'] === true);
        io.out(JSON.stringify({ group, topic, dryRun: values['dry-run'] === true, offsets }, null, 2));
        return 0;
      }
      default:
        throw new UsageError(`unknown group action "${action}"\n\n${USAGE}`);
    }
  } finally {
    admin.close();
  }
}

type ResetTarget = { kind: 'earliest' } | { kind: 'latest' } | { kind: 'offset'; offset: bigint };

function resetTarget(values: Record<string, unknown>): ResetTarget {
  const chosen = ['to-earliest', 'to-latest', 'to-offset'].filter(
    (k) => values[k] !== undefined && values[k] !== false,
  );
  if (chosen.length !== 1)
    throw new UsageError(`reset-offsets needs exactly one of --to-earliest, --to-latest, --to-offset N\n\n${USAGE}`);
  if (values['to-earliest']) return { kind: 'earliest' };
  if (values['to-latest']) return { kind: 'latest' };
  const raw = String(values['to-offset']);
  if (!/^\d+$/.test(raw)) throw new UsageError(`--to-offset ${raw}: expected an offset >= 0`);
  return { kind: 'offset', offset: BigInt(raw) };
}

const fail = (what: string, errorCode: number, message?: string | null): never => {
  throw new KafkaClientError(`${what}: ${errorName(errorCode)}${message ? `: ${message}` : ''}`, errorCode);
};

interface PartitionLag {
  topic: string;
  partition: number;
  /** null: nothing committed. */
  committedOffset: number | null;
  endOffset: number;
  /** null when nothing is committed. */
  lag: number | null;
  /** The member (client id / member id) the partition is assigned to, if any. */
  clientId: string | null;
  memberId: string | null;
}

class GroupAdmin {
  private readonly coordinators = new Map<string, Promise<KafkaConnection>>();

  constructor(private readonly client: KafkaClient) {}

  close(): void {
    for (const c of this.coordinators.values())
      c.then(
        (x) => x.close(),
        () => {},
      );
    this.client.close();
  }

  /** ListGroups on every broker of the cluster (each lists the groups it coordinates). */
  async list(): Promise<{ groupId: string; state: string | null; protocolType: string; groupType: string }[]> {
    const conn = await this.client.connect();
    const md: MetadataResponse = await conn.send(ApiKey.Metadata, conn.version(ApiKey.Metadata, 1, 12), {
      topics: [],
      allowAutoTopicCreation: false,
    });
    const out = new Map<string, { groupId: string; state: string | null; protocolType: string; groupType: string }>();
    for (const b of md.brokers) {
      const c =
        b.host === conn.address.split(':')[0] && String(b.port) === conn.address.split(':')[1]
          ? conn
          : await KafkaConnection.connect(b.host, b.port);
      try {
        const v = c.version(ApiKey.ListGroups, 0, 5);
        const res: ListGroupsResponse = await c.send(ApiKey.ListGroups, v, { statesFilter: [], typesFilter: [] });
        if (res.errorCode !== ErrorCode.NONE) fail(`list groups on broker ${b.nodeId}`, res.errorCode);
        for (const g of res.groups)
          out.set(g.groupId, {
            groupId: g.groupId,
            state: v >= 4 ? (g.groupState ?? null) : null,
            protocolType: g.protocolType,
            // ListGroups v5 (KIP-848): classic or consumer; older brokers only have classic groups.
            groupType: v >= 5 ? (g.groupType ?? 'classic') : 'classic',
          });
      } finally {
        if (c !== conn) c.close();
      }
    }
    return [...out.values()].sort((a, b) => a.groupId.localeCompare(b.groupId));
  }

  async describe(groupId: string) {
    const share = await describeShareGroup(await this.coordinator(groupId), groupId, (topic, partition) =>
      this.endOffset(topic, partition),
    );
    if (share) return { groupId, ...share };
    const modern = await describeConsumerProtocolGroup(await this.coordinator(groupId), groupId);
    const g = modern ? null : await this.describeGroup(groupId);
    const members: DescribedMemberForCli[] =
      modern?.members ??
      g!.members.map((m) => {
        const sub = consumerSubscription(m.memberMetadata);
        const assignment = consumerAssignment(m.memberAssignment);
        return {
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId ?? null,
          clientId: m.clientId,
          clientHost: m.clientHost,
          subscription: sub?.topics ?? null,
          assignment:
            assignment?.assignedPartitions.map((t) => ({
              topic: t.topic,
              partitions: [...t.partitions].sort((a, b) => a - b),
            })) ?? null,
        };
      });
    const owner = new Map<string, { clientId: string; memberId: string }>();
    for (const m of members)
      for (const t of m.assignment ?? [])
        for (const p of t.partitions) owner.set(`${t.topic}\u0000${p}`, { clientId: m.clientId, memberId: m.memberId });

    const committed = await this.committedOffsets(groupId);
    const keys = new Map<string, { topic: string; partition: number }>();
    for (const c of committed) keys.set(`${c.topic}\u0000${c.partition}`, c);
    for (const m of members)
      for (const t of m.assignment ?? [])
        for (const partition of t.partitions) keys.set(`${t.topic}\u0000${partition}`, { topic: t.topic, partition });
    const committedBy = new Map(committed.map((c) => [`${c.topic}\u0000${c.partition}`, c.offset]));

    const offsets: PartitionLag[] = [];
    const topics = [...new Set([...keys.values()].map((k) => k.topic))].sort();
    const leaders = await this.leaders(topics);
    for (const [key, { topic, partition }] of [...keys.entries()].sort(
      (a, b) => a[1].topic.localeCompare(b[1].topic) || a[1].partition - b[1].partition,
    )) {
      const leader = leaders.get(key);
      const endOffset = leader === undefined ? -1 : Number(await this.client.listOffset(topic, partition, leader, -1n));
      const c = committedBy.get(key);
      const committedOffset = c === undefined || c < 0 ? null : c;
      const o = owner.get(key);
      offsets.push({
        topic,
        partition,
        committedOffset,
        endOffset,
        lag: committedOffset === null || endOffset < 0 ? null : Math.max(0, endOffset - committedOffset),
        clientId: o?.clientId ?? null,
        memberId: o?.memberId ?? null,
      });
    }
    const kind = modern
      ? {
          groupType: 'consumer',
          state: modern.state,
          protocolType: 'consumer',
          groupEpoch: modern.groupEpoch,
          assignmentEpoch: modern.assignmentEpoch,
          assignor: modern.assignor,
        }
      : { groupType: 'classic', state: g!.groupState, protocolType: g!.protocolType, protocol: g!.protocolData };
    return {
      groupId,
      ...kind,
      members,
      offsets,
      totalLag: offsets.reduce((s, o) => s + (o.lag ?? 0), 0),
    };
  }

  async delete(groupId: string): Promise<void> {
    const conn = await this.coordinator(groupId);
    const res: DeleteGroupsResponse = await conn.send(ApiKey.DeleteGroups, conn.version(ApiKey.DeleteGroups, 1, 2), {
      groupsNames: [groupId],
    });
    const r = res.results[0]!;
    if (r.errorCode === ErrorCode.NON_EMPTY_GROUP)
      throw new KafkaClientError(`group ${groupId} still has members; stop its consumers first`, r.errorCode);
    if (r.errorCode !== ErrorCode.NONE) fail(`delete group ${groupId}`, r.errorCode);
  }

  /** Commits the target offsets for every partition of `topic` as a "simple" (generation -1) commit. */
  async resetOffsets(groupId: string, topic: string, target: ResetTarget, dryRun: boolean) {
    const g =
      (await describeConsumerProtocolGroup(await this.coordinator(groupId), groupId)) ??
      (await this.describeGroup(groupId));
    const state = 'groupType' in g ? g.state : g.groupState;
    if (state !== 'Empty' && state !== 'Dead') {
      throw new KafkaClientError(
        `group ${groupId} is ${state} with ${g.members.length} member(s); offsets can only be reset while it has none: stop its consumers first`,
      );
    }
    const meta = await this.client.topic(topic);
    const offsets: { partition: number; offset: number; earliest: number; latest: number }[] = [];
    for (const p of meta.partitions) {
      const earliest = await this.client.listOffset(topic, p.partition, p.leader, -2n);
      const latest = await this.client.listOffset(topic, p.partition, p.leader, -1n);
      // As kafka-consumer-groups does: an offset outside the log is clamped to its ends.
      const wanted = target.kind === 'earliest' ? earliest : target.kind === 'latest' ? latest : target.offset;
      const offset = wanted < earliest ? earliest : wanted > latest ? latest : wanted;
      offsets.push({
        partition: p.partition,
        offset: Number(offset),
        earliest: Number(earliest),
        latest: Number(latest),
      });
    }
    if (dryRun) return offsets;
    const conn = await this.coordinator(groupId);
    const res: OffsetCommitResponse = await conn.send(ApiKey.OffsetCommit, conn.version(ApiKey.OffsetCommit, 2, 9), {
      groupId,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: topic,
          partitions: offsets.map((o) => ({
            partitionIndex: o.partition,
            committedOffset: BigInt(o.offset),
            committedLeaderEpoch: -1,
            committedMetadata: null,
          })),
        },
      ],
    });
    for (const p of res.topics[0]?.partitions ?? []) {
      if (p.errorCode === ErrorCode.UNKNOWN_MEMBER_ID)
        throw new KafkaClientError(
          `group ${groupId} got members while resetting; stop its consumers first`,
          p.errorCode,
        );
      if (p.errorCode !== ErrorCode.NONE) fail(`commit ${topic}/${p.partitionIndex} for ${groupId}`, p.errorCode);
    }
    return offsets;
  }

  private async describeGroup(groupId: string) {
    const conn = await this.coordinator(groupId);
    const res: DescribeGroupsResponse = await conn.send(
      ApiKey.DescribeGroups,
      conn.version(ApiKey.DescribeGroups, 0, 5),
      { groups: [groupId], includeAuthorizedOperations: false },
    );
    const g = res.groups[0]!;
    if (g.errorCode !== ErrorCode.NONE) fail(`describe group ${groupId}`, g.errorCode);
    return g;
  }

  private async committedOffsets(groupId: string): Promise<{ topic: string; partition: number; offset: number }[]> {
    const conn = await this.coordinator(groupId);
    const v = conn.version(ApiKey.OffsetFetch, 2, 7);
    const res: OffsetFetchResponse = await conn.send(ApiKey.OffsetFetch, v, {
      groupId,
      topics: null,
      requireStable: false,
    });
    if ((res.errorCode ?? 0) !== ErrorCode.NONE) fail(`fetch offsets of ${groupId}`, res.errorCode!);
    return (res.topics ?? []).flatMap((t) =>
      (t.partitions ?? []).map((p) => ({
        topic: t.name ?? '',
        partition: p.partitionIndex ?? 0,
        offset: Number(p.committedOffset ?? -1n),
      })),
    );
  }

  /** One partition's end offset (ListOffsets latest at its leader), -1 when it has no leader. */
  private async endOffset(topic: string, partition: number): Promise<number> {
    const leader = (await this.leaders([topic])).get(`${topic}\u0000${partition}`);
    return leader === undefined ? -1 : Number(await this.client.listOffset(topic, partition, leader, -1n));
  }

  /** Partition leaders by "topic\0partition", for the end offsets. */
  private async leaders(topics: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (topics.length === 0) return out;
    const md = await this.client.metadata(topics);
    for (const t of md.topics)
      for (const p of t.partitions)
        if (t.errorCode === ErrorCode.NONE) out.set(`${t.name}\u0000${p.partition}`, p.leader);
    return out;
  }

  /** A connection to the group's coordinator (FindCoordinator through the bootstrap broker). */
  private coordinator(groupId: string): Promise<KafkaConnection> {
    let c = this.coordinators.get(groupId);
    if (!c) {
      c = (async () => {
        const conn = await this.client.connect();
        const v = conn.version(ApiKey.FindCoordinator, 0, 6);
        const res: FindCoordinatorResponse = await conn.send(
          ApiKey.FindCoordinator,
          v,
          v >= 4 ? { keyType: 0, coordinatorKeys: [groupId] } : { key: groupId, keyType: 0 },
        );
        const r =
          v >= 4
            ? res.coordinators![0]!
            : { errorCode: res.errorCode!, errorMessage: res.errorMessage, host: res.host!, port: res.port! };
        if (r.errorCode !== ErrorCode.NONE)
          fail(`find the coordinator of group ${groupId}`, r.errorCode!, r.errorMessage);
        return KafkaConnection.connect(r.host!, r.port!);
      })();
      this.coordinators.set(groupId, c);
    }
    return c;
  }
}
