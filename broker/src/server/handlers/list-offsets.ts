// ListOffsets (key 2): v0-10; v0 (maxNumOffsets, oldStyleOffsets) is answered by list-offsets-v0.ts.
// Timestamps: -2 earliest, -1 latest, -3 max timestamp (v7+, KIP-734),
// -4 earliest local (v8+, = earliest here), -5 earliest pending upload (v9+, none here: -1);
// otherwise the first record with timestamp >= the one asked (storage/record-times.ts: batches are
// stored whole, so a lookup by time decodes just the one batch that holds the answer). isolation_level 1
// (read_committed, v2+) reads up to the last stable offset (Partition.fetchOffsetForTimestamp):
// LATEST is the LSO and an offset found by time at or past it is none (-1).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  ListOffsetsRequest,
  ListOffsetsResponse,
  ListOffsetsResponseListOffsetsPartitionResponse,
} from '../../protocol/messages';
import { offsetForTimestamp, offsetOfMaxTimestamp, type Found } from '../../storage/record-times';
import type { ApiHandler } from '../context';
import { partitionKey } from '../fetch-waiters';
import { authorizedNames } from './authz';
import { listOffsetsV0 } from './list-offsets-v0';

const EARLIEST = -2n;
const LATEST = -1n;
const MAX_TIMESTAMP = -3n;
const EARLIEST_LOCAL = -4n;
const EARLIEST_PENDING_UPLOAD = -5n;
const READ_COMMITTED = 1;

/** The partitions named more than once in the request, as partitionKey(topic, partition). */
function duplicatePartitions(req: ListOffsetsRequest): Set<string> {
  const seen = new Set<string>();
  const duplicated = new Set<string>();
  for (const t of req.topics)
    for (const p of t.partitions) {
      const key = partitionKey(t.name, p.partitionIndex);
      if (seen.has(key)) duplicated.add(key);
      else seen.add(key);
    }
  return duplicated;
}

export const listOffsetsHandler: ApiHandler<ListOffsetsRequest, ListOffsetsResponse> = {
  apiKey: ApiKey.ListOffsets,
  minVersion: 0,
  maxVersion: 10,
  async handle(ctx, req) {
    const { broker, apiVersion } = ctx;
    const readCommitted = apiVersion >= 2 && req.isolationLevel === READ_COMMITTED;
    // KafkaApis: DESCRIBE on the topic, else TOPIC_AUTHORIZATION_FAILED on each of its partitions.
    const describable = authorizedNames(
      ctx,
      'DESCRIBE',
      'TOPIC',
      req.topics.map((t) => t.name),
    );
    const refused = (t: ListOffsetsRequest['topics'][number]) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        ...(apiVersion === 0 ? { oldStyleOffsets: [] } : {}),
        timestamp: -1n,
        offset: -1n,
        leaderEpoch: -1,
      })),
    });
    if (apiVersion === 0) {
      const topics = await Promise.all(
        req.topics.map(async (t) =>
          !describable.has(t.name)
            ? refused(t)
            : {
                name: t.name,
                partitions: await Promise.all(
                  t.partitions.map((p) =>
                    listOffsetsV0(broker, t.name, p.partitionIndex, p.timestamp, p.maxNumOffsets ?? 1),
                  ),
                ),
              },
        ),
      );
      return { throttleTimeMs: 0, topics };
    }
    // KafkaApis (v1+): a partition the request names more than once is answered INVALID_REQUEST
    // at each mention (ListOffsetsRequest.duplicatePartitions), after the topic's authorization.
    const duplicated = duplicatePartitions(req);
    const topics = await Promise.all(
      req.topics.map(async (t) =>
        !describable.has(t.name)
          ? refused(t)
          : {
              name: t.name,
              partitions: await Promise.all(
                t.partitions.map(async (p): Promise<ListOffsetsResponseListOffsetsPartitionResponse> => {
                  if (duplicated.has(partitionKey(t.name, p.partitionIndex)))
                    return {
                      partitionIndex: p.partitionIndex,
                      errorCode: ErrorCode.INVALID_REQUEST,
                      timestamp: -1n,
                      offset: -1n,
                      leaderEpoch: -1,
                    };
                  const answer = (offset: number, timestamp = -1): ListOffsetsResponseListOffsetsPartitionResponse => ({
                    partitionIndex: p.partitionIndex,
                    errorCode: ErrorCode.NONE,
                    timestamp: BigInt(timestamp),
                    offset: BigInt(offset),
                    // No offset found means no epoch either: Kafka sends -1 (ListOffsetsResponse.UNKNOWN_EPOCH).
                    leaderEpoch: offset < 0 ? -1 : 0,
                  });
                  const offsets = await broker.storage.offsets(t.name, p.partitionIndex);
                  if (!offsets)
                    return {
                      partitionIndex: p.partitionIndex,
                      errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                      timestamp: -1n,
                      offset: -1n,
                      leaderEpoch: -1,
                    };
                  const lastFetchable = readCommitted
                    ? ((await broker.storage.lastStableOffset(t.name, p.partitionIndex)) ?? offsets.highWatermark)
                    : offsets.highWatermark;
                  const found = (f: Found | undefined) =>
                    f && f.offset < lastFetchable ? answer(f.offset, f.timestamp) : answer(-1);
                  switch (p.timestamp) {
                    case EARLIEST:
                    case EARLIEST_LOCAL:
                      return answer(offsets.logStartOffset);
                    case LATEST:
                      return answer(lastFetchable);
                    case EARLIEST_PENDING_UPLOAD:
                      return answer(-1);
                    case MAX_TIMESTAMP:
                      return found(
                        offsetOfMaxTimestamp(await broker.storage.batchWithMaxTimestamp(t.name, p.partitionIndex)),
                      );
                    default: {
                      // A negative time that is no sentinel: Kafka 4.1 answers UNSUPPORTED_VERSION (seen with npm run compat).
                      if (p.timestamp < 0n) return { ...answer(-1), errorCode: ErrorCode.UNSUPPORTED_VERSION };
                      const ts = Number(p.timestamp);
                      return found(
                        offsetForTimestamp(await broker.storage.batchForTimestamp(t.name, p.partitionIndex, ts), ts),
                      );
                    }
                  }
                }),
              ),
            },
      ),
    );
    return { throttleTimeMs: 0, topics };
  },
};
