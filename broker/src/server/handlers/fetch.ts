// Fetch (key 1): served v4-16, advertised from v0. v0-3 (message formats 0/1) get UNSUPPORTED_VERSION
// on every partition, not down-converted: Kafka 4.0 dropped them (KIP-896), and the clients that
// send them without negotiating are sarama <= 1.27.0 with its default config.Version and Java
// clients before 0.10.2 (old-message-formats.ts has the evidence). v13+ names topics by id
// (KIP-516), which Metadata has returned since v10, so the Java consumer may use it; v15 moves the
// replica id into ReplicaState. Returns stored batches
// as they were produced, without decoding them. Long-polls up to max_wait_ms until min_bytes are
// available, woken by appends (fetch-waiters.ts); a fetch naming no partition is answered at once,
// as Kafka does (ReplicaManager.fetchMessages: fetchInfos.isEmpty). The response carries at most
// min(max_bytes, FETCH_MAX_BYTES) record bytes, and min_bytes is capped to that (KafkaApis
// handleFetchRequest); partition_max_bytes is honoured too, except that the first batch of the first
// non-empty partition is always returned whole (KIP-74), so one batch bigger than the caps (up to
// the topic's max.message.bytes) still reaches the consumer. Later partitions read only what fits.
// No fetch sessions (KIP-227): session id 0 makes clients send full fetches; an incremental fetch
// (epoch other than 0 or -1) names a session minnow never gave, so it gets FETCH_SESSION_ID_NOT_FOUND
// at once, as Kafka's FetchManager.newContext answers an unknown session. isolation_level 1
// (read_committed, KIP-98) returns batches only below each partition's last stable offset, with the
// aborted transactions that overlap them, so the consumer drops their records; markers (EndTxn,
// a timeout) wake waiting read_committed fetches as appends do. Every answer carries the LSO.
// Every partition carries a record set, empty on errors: librdkafka rejects a whole response with a
// null one ("invalid MessageSetSize -1") and never sees the error (Kafka: KAFKA-18935).
// abortedTransactions is what Kafka puts there: null for read_uncommitted reads and read errors,
// a list (possibly empty) for read_committed, empty for unknown topics/partitions.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { FetchRequest, FetchResponse, FetchResponsePartitionData } from '../../protocol/messages';
import { BASE_OFFSET, LAST_OFFSET_DELTA } from '../../protocol/record-batch';
import { RecordChunks } from '../../protocol/records';
import { ZERO_UUID } from '../../protocol/uuid';
import type { TopicInfo } from '../../storage/storage';
import type { ApiHandler, BrokerContext } from '../context';
import { authorizedNames } from './authz';
import { partitionKey } from '../fetch-waiters';
import type { ResponseHold } from '../response-memory';
import { MIN_FETCH_VERSION, refuseOldFetch } from './old-message-formats';
import { fetchedOutsideHeap } from '../young-generation';

const NO_LIMIT = 0x7fffffff;
const NO_RECORDS = Buffer.alloc(0);
/** Shared by every answer without aborted transactions (the encoder only reads it). */
const NO_ABORTED: FetchResponsePartitionData['abortedTransactions'] = [];
const READ_COMMITTED = 1;

interface Collected {
  response: FetchResponse;
  /**
   * What min_bytes is compared with, as Kafka's DelayedFetch counts it: per partition the bytes
   * available past the fetch offset up to partition_max_bytes. A partition with more data than was
   * returned counts at least the limit that stopped it, so a response the caps filled never waits
   * for min_bytes (with min_bytes capped to FETCH_MAX_BYTES, whole batches rarely add up to it).
   */
  available: number;
  hasError: boolean;
}

/** The offset after a stored batch (its base offset plus last offset delta, plus one). */
const endOffsetOf = (batch: Buffer) =>
  Number(batch.readBigInt64BE(BASE_OFFSET)) + batch.readInt32BE(LAST_OFFSET_DELTA) + 1;

/** The topic a fetch names: by id from v13 (KIP-516), by name before. */
function topicOf(
  broker: BrokerContext,
  t: FetchRequest['topics'][number],
  byId: boolean,
): Promise<TopicInfo | undefined> {
  return byId ? broker.storage.topicById(t.topicId ?? ZERO_UUID) : broker.storage.topic(t.topic ?? '');
}

/** FetchMetadata.INITIAL_EPOCH and FINAL_EPOCH: the epochs of a full (sessionless here) fetch. */
const INITIAL_EPOCH = 0;
const FINAL_EPOCH = -1;

/**
 * Reads the partitions one after another (each read's limit depends on the bytes before it, and
 * KIP-74's first batch on none before it); a synchronous engine answers each await at once.
 */
async function collect(
  broker: BrokerContext,
  req: FetchRequest,
  byId: boolean,
  maxBytes: number,
  readable: ReadonlySet<string>,
  hold: ResponseHold | undefined,
): Promise<Collected> {
  let budget = maxBytes;
  let bytes = 0;
  let available = 0;
  let hasError = false;
  const readCommitted = req.isolationLevel === READ_COMMITTED;
  const responses: FetchResponse['responses'] = [];
  for (const t of req.topics) {
    const topic = await topicOf(broker, t, byId);
    const name = topic?.name ?? t.topic ?? '';
    const unknown = byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    const partitions: FetchResponsePartitionData[] = [];
    for (const p of t.partitions) partitions.push(await readPartition(p));
    responses.push({ topic: name, topicId: t.topicId, partitions });

    async function readPartition(
      p: FetchRequest['topics'][number]['partitions'][number],
    ): Promise<FetchResponsePartitionData> {
      const base: FetchResponsePartitionData = {
        partitionIndex: p.partition,
        errorCode: ErrorCode.NONE,
        highWatermark: -1n,
        lastStableOffset: -1n,
        logStartOffset: -1n,
        abortedTransactions: NO_ABORTED,
        preferredReadReplica: -1,
        records: NO_RECORDS,
      };
      // KafkaApis.handleFetchRequest: an unknown topic id first, then READ on the topic (before
      // its partitions are looked at), then the partition.
      if (!topic && byId) {
        hasError = true;
        return { ...base, errorCode: unknown };
      }
      if (!readable.has(name)) {
        hasError = true;
        return { ...base, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
      }
      if (!topic) {
        hasError = true;
        return { ...base, errorCode: unknown };
      }
      if (p.partition < 0 || p.partition >= topic.partitionCount) {
        hasError = true;
        return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
      }
      const wanted = Math.max(0, Math.min(p.partitionMaxBytes, budget));
      // The broker-wide bound (response-memory.ts): taken before the read, so fetches running at
      // once cannot all count on the same free memory.
      const limit = hold ? hold.take(wanted) : wanted;
      // KIP-74 (ReplicaManager.readFromLog, minOneMessage): only while the response has no records
      // may a partition's first batch exceed the limits; later reads load only batches that fit.
      // Not when the broker's response memory ran short: then the read stays within what it got.
      const read = await broker.storage.read(
        name,
        p.partition,
        Number(p.fetchOffset),
        limit,
        bytes === 0 && limit === wanted,
        readCommitted,
      );
      hold?.keep(
        limit,
        read.batches.reduce((n, b) => n + b.length, 0),
      );
      if (read.errorCode !== ErrorCode.NONE) {
        // Kafka's createLogReadResult(e): offsets unknown (-1), no aborted-transaction list.
        hasError = true;
        return { ...base, errorCode: read.errorCode, abortedTransactions: null };
      }
      const out = {
        ...base,
        highWatermark: BigInt(read.highWatermark),
        lastStableOffset: BigInt(read.lastStableOffset),
        logStartOffset: BigInt(read.logStartOffset),
        abortedTransactions: !readCommitted
          ? null
          : read.abortedTransactions.length === 0
            ? NO_ABORTED
            : read.abortedTransactions.map((a) => ({
                producerId: BigInt(a.producerId),
                firstOffset: BigInt(a.firstOffset),
              })),
      };
      const batches = read.batches;
      const end = batches.length > 0 ? endOffsetOf(batches[batches.length - 1]!) : Number(p.fetchOffset);
      // Several batches stay apart (records.ts): written to the socket as they are, not copied together.
      const records =
        batches.length === 0 ? NO_RECORDS : batches.length === 1 ? batches[0]! : new RecordChunks(batches);
      // DelayedFetch counts up to what the isolation level may read: past the LSO, data of an open
      // transaction is not available to read_committed (it waits for the marker instead).
      const readUpTo = readCommitted ? read.lastStableOffset : read.highWatermark;
      available += end < readUpTo ? Math.max(records.length, limit) : records.length;
      if (records.length === 0) return out;
      bytes += records.length;
      budget -= records.length;
      return { ...out, records };
    }
  }
  fetchedOutsideHeap(bytes); // each batch read from SQLite is a new Buffer (young-generation.ts)
  return { response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses }, available, hasError };
}

/**
 * Kafka reads a fetch into a LinkedHashMap keyed by partition (FetchRequest.fetchData): a partition
 * named twice is answered once, at its first place, with the parameters it was last given, and its
 * bytes are counted once.
 */
function withEachPartitionOnce(req: FetchRequest, byId: boolean): FetchRequest {
  type Topic = FetchRequest['topics'][number];
  if (req.topics.length === 1 && req.topics[0]!.partitions.length <= 1) return req; // most fetches: nothing to merge
  const entries = new Map<string, { topic: Topic; partition: Topic['partitions'][number] }>();
  for (const t of req.topics) {
    for (const p of t.partitions)
      entries.set(`${byId ? t.topicId : t.topic}\u0000${p.partition}`, { topic: t, partition: p });
  }
  if (entries.size === req.topics.reduce((n, t) => n + t.partitions.length, 0)) return req;
  // Consecutive partitions of one topic share a response entry, as FetchResponse.toMessage groups them.
  const topics: Topic[] = [];
  for (const { topic, partition } of entries.values()) {
    const last = topics[topics.length - 1];
    if (last && (byId ? last.topicId === topic.topicId : last.topic === topic.topic)) last.partitions.push(partition);
    else topics.push({ ...topic, partitions: [partition] });
  }
  return { ...req, topics };
}

/** SessionErrorContext: the error, session id 0 and no partitions (Kafka cannot tell which were meant). */
function unknownSession(): FetchResponse {
  return { throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] };
}

export const fetchHandler: ApiHandler<FetchRequest, FetchResponse> = {
  apiKey: ApiKey.Fetch,
  minVersion: 0,
  maxVersion: 16,
  async handle(ctx, request) {
    const { broker, apiVersion, session, clientId } = ctx;
    if (apiVersion < MIN_FETCH_VERSION) return refuseOldFetch(request);
    if (request.sessionEpoch !== INITIAL_EPOCH && request.sessionEpoch !== FINAL_EPOCH) return unknownSession();
    const byId = apiVersion >= 13;
    const req = withEachPartitionOnce(request, byId);
    // KafkaApis.handleFetchRequest: fetchMaxBytes = min(request, fetch.max.bytes, what one quota
    // window allows the client), fetchMinBytes = min(request, fetchMaxBytes).
    const quotaWindowBytes = Math.floor(
      broker.quotas.fetch.maxValueInQuotaWindow(session.principal.name, clientId ?? ''),
    );
    const maxBytes = Math.min(req.maxBytes ?? NO_LIMIT, broker.config.fetchMaxBytes, quotaWindowBytes);
    const minBytes = Math.min(req.minBytes, maxBytes);
    const noPartitions = req.topics.every((t) => t.partitions.length === 0);
    const deadline = broker.now() + Math.max(0, req.maxWaitMs);
    const names = await Promise.all(
      req.topics.map(async (t) => (await topicOf(broker, t, byId))?.name ?? t.topic ?? ''),
    );
    const keys = req.topics.flatMap((t, i) => t.partitions.map((p) => partitionKey(names[i]!, p.partition)));
    // Decided once per request (the ACLs of a long poll are those it started with, as in Kafka).
    const readable = authorizedNames(ctx, 'READ', 'TOPIC', names);
    const hold = ctx.responseHold;
    for (;;) {
      const c = await collect(broker, req, byId, maxBytes, readable, hold);
      const left = deadline - broker.now();
      if (c.available >= minBytes || c.hasError || noPartitions || left <= 0 || broker.fetchWaiters.isClosed)
        return c.response;
      hold?.releaseAll(); // this read is thrown away: the next one takes afresh
      await broker.fetchWaiters.wait(keys, left);
      if (broker.now() >= deadline || broker.fetchWaiters.isClosed)
        return (await collect(broker, req, byId, maxBytes, readable, hold)).response;
    }
  },
};
