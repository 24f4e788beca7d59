// OffsetFetch (key 9): v0-9. v0 read ZooKeeper-stored offsets in Kafka 3.x (gone in 4.0, KIP-896):
// a KRaft Kafka 3.9 answers UNSUPPORTED_VERSION with offset -1 for every partition asked, as here.
// v2+ may ask for all topics (null) and has a top-level error, v5 adds
// leader epochs, v6 is flexible, v7 requireStable (no transactions, so always stable), v8+ asks for
// several groups at once (KIP-709). A partition without a commit answers offset -1.
import { ApiKey } from '../../../protocol/api-keys';
import { ErrorCode } from '../../../protocol/error-codes';
import type { OffsetFetchRequest, OffsetFetchResponse } from '../../../protocol/messages';
import type { ApiHandler } from '../../context';

export const offsetFetchHandler: ApiHandler<OffsetFetchRequest, OffsetFetchResponse> = {
  apiKey: ApiKey.OffsetFetch,
  minVersion: 0,
  maxVersion: 9,
  handle(ctx, req) {
    if (ctx.apiVersion === 0) {
      const partitions = (indexes: number[]) =>
        indexes.map((partitionIndex) => ({
          partitionIndex,
          committedOffset: -1n,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: ErrorCode.UNSUPPORTED_VERSION,
        }));
      return {
        throttleTimeMs: 0,
        topics: (req.topics ?? []).map((t) => ({
          name: t.name ?? '',
          partitions: partitions(t.partitionIndexes ?? []),
        })),
      };
    }
    const groups = ctx.broker.groups;
    const toTopics = (topics: { name?: string; partitionIndexes?: number[] }[] | null | undefined) =>
      topics === null || topics === undefined
        ? null
        : topics.map((t) => ({ name: t.name ?? '', partitions: t.partitionIndexes ?? [] }));
    const partitionsOut = (r: ReturnType<typeof groups.fetchOffsets>) =>
      r.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partition,
          committedOffset: BigInt(p.offset),
          committedLeaderEpoch: p.leaderEpoch,
          metadata: p.metadata,
          errorCode: p.errorCode,
        })),
      }));
    if (ctx.apiVersion >= 8) {
      return {
        throttleTimeMs: 0,
        groups: (req.groups ?? []).map((g) => {
          const r = groups.fetchOffsets(g.groupId ?? '', toTopics(g.topics));
          return { groupId: g.groupId ?? '', errorCode: r.errorCode, topics: partitionsOut(r) };
        }),
      };
    }
    // v1 has no "all topics" form: a null list is not valid there, treat it as empty.
    const topics = ctx.apiVersion < 2 ? (toTopics(req.topics) ?? []) : toTopics(req.topics);
    const r = groups.fetchOffsets(req.groupId ?? '', topics);
    let out = partitionsOut(r);
    if (ctx.apiVersion < 2 && r.errorCode !== 0) {
      // No top-level error before v2: put it on every partition asked for.
      out = (topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p,
          committedOffset: -1n,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: r.errorCode,
        })),
      }));
    }
    return { throttleTimeMs: 0, errorCode: r.errorCode, topics: out };
  },
};
