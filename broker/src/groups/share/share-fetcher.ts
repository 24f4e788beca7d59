// ShareFetch and ShareAcknowledge (KIP-932; Kafka's KafkaApis.handleShareFetchRequest and
// SharePartitionManager): the share session's epoch, the acknowledgements carried by the request,
// then, for ShareFetch, records acquired for the member from the partitions of its session (in
// share-fetch-order.ts's order), answered as whole batches plus the AcquiredRecords ranges the
// client may hand to the application.
// A fetch waits up to MaxWaitMs for MinBytes to be readable (share-fetch-min-bytes.ts), and one
// that acquires nothing waits the rest of it for an append (or a release) on its partitions.
import { ErrorCode } from '../../protocol/error-codes';
import { RecordChunks, type Records } from '../../protocol/records';
import type { Storage } from '../../storage/storage';
import type { TopicInfo } from '../../storage/topic-store';
import type { ShareGroupConfigs, ShareGroupSettings } from './share-group-configs';
import { acquireFromPartition, countOf, type FetchedBytesHold } from './share-partition-read';
import type { SharePartitions } from './share-partitions';
import { fetchPlan } from './share-fetch-order';
import { readableBytes } from './share-fetch-min-bytes';
import { CLOSE_EPOCH, OPEN_EPOCH, sessionPartitionKey, type ShareSessions } from './share-sessions';

export interface AckBatch {
  firstOffset: bigint;
  lastOffset: bigint;
  acknowledgeTypes: number[];
}

export interface ShareRequestTopic {
  topicId: string;
  partitions: Array<{ partitionIndex: number; acknowledgementBatches: AckBatch[] }>;
}

export interface ShareFetchInput {
  groupId: string;
  memberId: string;
  shareSessionEpoch: number;
  maxWaitMs: number;
  /** Bytes the answer should hold: the fetch waits (up to MaxWaitMs) until that much is readable. */
  minBytes?: number;
  maxBytes: number;
  maxRecords: number;
  topics: ShareRequestTopic[];
  forgotten: Array<{ topicId: string; partitions: number[] }>;
  /** READ on the topic (checked by the handler's authorizer). */
  mayRead: (topicName: string) => boolean;
  /** false for ShareAcknowledge: acknowledgements only. */
  fetch: boolean;
  /** The connection the request came on (a session opened on it ends with it). */
  connectionId?: number;
  /**
   * Whether this broker leads the partition (src/cluster): a share-partition's state lives on its
   * leader only, as in Kafka; elsewhere NOT_LEADER_OR_FOLLOWER. Absent: this broker leads all.
   */
  leads?: (topicName: string, partition: number) => boolean;
  /**
   * The request's share of the broker's bound on fetched bytes held in memory
   * (MINNOW_FETCH_RESPONSE_MEMORY_BYTES), as a Fetch's; absent: no bound (outside a connection).
   */
  memory?: FetchedBytesHold;
}

export interface SharePartitionAnswer {
  topicId: string;
  partitionIndex: number;
  errorCode: number;
  acknowledgeErrorCode: number;
  records: Records;
  acquiredRecords: Array<{ firstOffset: bigint; lastOffset: bigint; deliveryCount: number }>;
}

export interface ShareFetchOutput {
  errorCode: number;
  errorMessage: string | null;
  partitions: SharePartitionAnswer[];
  /** The group's share.record.lock.duration.ms (ShareFetchResponse.AcquisitionLockTimeoutMs). */
  acquisitionLockTimeoutMs: number;
}

/** The broker's fetch waiters (server/fetch-waiters.ts), seen from here: groups/ sits below server/. */
export interface PartitionWaiters {
  /** Resolves on an append to one of the partitions (or a notify), or after timeoutMs. */
  wait(partitions: ReadonlyArray<{ topic: string; partition: number }>, timeoutMs: number): Promise<void>;
  notify(topic: string, partition: number): void;
}

export interface ShareFetcherDeps {
  storage: Storage;
  fetchWaiters: PartitionWaiters;
  partitions: SharePartitions;
  sessions: ShareSessions;
  configs: ShareGroupConfigs;
  now: () => number;
}

const NO_RECORDS = Buffer.alloc(0);

export class ShareFetcher {
  constructor(private readonly deps: ShareFetcherDeps) {}

  async handle(req: ShareFetchInput): Promise<ShareFetchOutput> {
    const { sessions } = this.deps;
    const settings = await this.deps.configs.of(req.groupId);
    const fail = (errorCode: number, errorMessage: string): ShareFetchOutput => ({
      errorCode,
      errorMessage,
      partitions: [],
      acquisitionLockTimeoutMs: settings.lockDurationMs,
    });
    const done = (): ShareFetchOutput => ({
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      partitions: [...answers.values()],
      acquisitionLockTimeoutMs: settings.lockDurationMs,
    });
    const hasAcks = req.topics.some((t) => t.partitions.some((p) => p.acknowledgementBatches.length > 0));
    if (req.shareSessionEpoch === OPEN_EPOCH && hasAcks) {
      return fail(ErrorCode.INVALID_REQUEST, 'Acknowledge data present on initial share fetch request.');
    }
    if (!req.fetch && req.shareSessionEpoch === OPEN_EPOCH) {
      return fail(ErrorCode.INVALID_SHARE_SESSION_EPOCH, 'ShareAcknowledge cannot open a share session (epoch 0).');
    }
    const checked = sessions.check(req.groupId, req.memberId, req.shareSessionEpoch, req.connectionId);
    if (checked.errorCode === ErrorCode.SHARE_SESSION_LIMIT_REACHED) {
      return fail(
        checked.errorCode,
        `This broker has group.share.max.share.sessions share sessions open; member ${req.memberId} of group ${req.groupId} cannot open another until one closes (raise GROUP_SHARE_MAX_SHARE_SESSIONS).`,
      );
    }
    if (checked.errorCode !== ErrorCode.NONE || !checked.session) {
      const what = checked.errorCode === ErrorCode.SHARE_SESSION_NOT_FOUND ? 'no share session' : 'another epoch';
      return fail(
        checked.errorCode,
        `Share session epoch ${req.shareSessionEpoch} of member ${req.memberId} in group ${req.groupId}: the broker has ${what}; the client starts a new session with epoch 0.`,
      );
    }
    const session = checked.session;
    const answers = new Map<string, SharePartitionAnswer>();
    const answerFor = (topicId: string, partitionIndex: number): SharePartitionAnswer => {
      const k = sessionPartitionKey(topicId, partitionIndex);
      let a = answers.get(k);
      if (!a) {
        a = {
          topicId,
          partitionIndex,
          errorCode: 0,
          acknowledgeErrorCode: 0,
          records: NO_RECORDS,
          acquiredRecords: [],
        };
        answers.set(k, a);
      }
      return a;
    };
    const topics = new Map<string, TopicInfo | undefined>();
    const topicOf = async (id: string) => {
      if (!topics.has(id)) topics.set(id, await this.deps.storage.topicById(id));
      return topics.get(id);
    };
    // Acknowledgements first (Kafka acknowledges before it fetches, so released records can go out again).
    // Their writes are awaited before the answer, as Kafka's share-state write is: a broker killed
    // after answering must not deliver an acknowledged record again.
    const ackWrites: Array<Promise<void>> = [];
    for (const t of req.topics) {
      const topic = await topicOf(t.topicId);
      for (const p of t.partitions) {
        if (req.fetch) session.partitions.add(sessionPartitionKey(t.topicId, p.partitionIndex));
        if (p.acknowledgementBatches.length === 0) {
          if (!req.fetch) answerFor(t.topicId, p.partitionIndex);
          continue;
        }
        const a = answerFor(t.topicId, p.partitionIndex);
        const err = this.partitionError(topic, p.partitionIndex, req);
        if (err !== ErrorCode.NONE) {
          a.acknowledgeErrorCode = err;
          if (!req.fetch) a.errorCode = err;
          continue;
        }
        const state = await this.deps.partitions.get(req.groupId, topic!, p.partitionIndex);
        let ok = true;
        for (const b of p.acknowledgementBatches) {
          ok =
            state.acknowledge(
              req.memberId,
              Number(b.firstOffset),
              Number(b.lastOffset),
              b.acknowledgeTypes,
              this.deps.now(),
            ) && ok;
        }
        ackWrites.push(this.deps.partitions.changed(req.groupId, topic!.topicId, p.partitionIndex, state));
        if (!ok) {
          a.acknowledgeErrorCode = ErrorCode.INVALID_RECORD_STATE;
          if (!req.fetch) a.errorCode = ErrorCode.INVALID_RECORD_STATE;
        }
        // Released records may go to a member waiting on this partition.
        this.deps.fetchWaiters.notify(topic!.name, p.partitionIndex);
      }
    }
    await Promise.all(ackWrites);
    for (const f of req.forgotten) {
      for (const p of f.partitions) session.partitions.delete(sessionPartitionKey(f.topicId, p));
    }
    if (req.shareSessionEpoch === CLOSE_EPOCH) {
      // Closing the session gives the member's acquired records back (SharePartitionManager.releaseSession).
      await this.releaseMember(req.groupId, req.memberId);
      return done();
    }
    if (req.fetch) {
      const deadline = this.deps.now() + req.maxWaitMs;
      const partitions = [...session.partitions];
      const waitKeys = async () => {
        const keys: Array<{ topic: string; partition: number }> = [];
        for (const k of partitions) {
          const [topicId, part] = k.split('\u0000');
          const topic = await topicOf(topicId!);
          if (topic) keys.push({ topic: topic.name, partition: Number(part) });
        }
        return keys;
      };
      // MinBytes, as Kafka's DelayedShareFetch (tryComplete / isMinBytesSatisfied): the records are
      // acquired once the partitions hold MinBytes past their next fetch offsets or MaxWaitMs has
      // passed, never held while waiting. A MinBytes of 1 is "something to acquire", the check below.
      const minBytes = req.minBytes ?? 0;
      if (minBytes > 1) {
        const counted = { ...this.deps, readCommitted: settings.readCommitted, topicOf };
        const canRead = (topic: TopicInfo | undefined, p: number) =>
          this.partitionError(topic, p, req) === ErrorCode.NONE;
        while ((await readableBytes(counted, req, partitions, canRead, minBytes)) < minBytes) {
          const rest = deadline - this.deps.now();
          if (rest <= 0) break;
          await this.deps.fetchWaiters.wait(await waitKeys(), rest);
        }
      }
      const acquired = await this.acquire(req, settings, partitions, topicOf, answerFor);
      const rest = deadline - this.deps.now();
      if (acquired === 0 && rest > 0) {
        await this.deps.fetchWaiters.wait(await waitKeys(), rest);
        await this.acquire(req, settings, partitions, topicOf, answerFor);
      }
    }
    return done();
  }

  /** A member left its group: every record it holds in the group goes back. */
  async releaseMember(groupId: string, memberId: string): Promise<void> {
    for (const p of await this.deps.partitions.loaded(groupId)) {
      if (p.state.releaseMember(memberId) === 0) continue;
      this.deps.partitions.changed(groupId, p.topicId, p.partition, p.state);
      const topic = await this.deps.storage.topicById(p.topicId);
      if (topic) this.deps.fetchWaiters.notify(topic.name, p.partition);
    }
  }

  private partitionError(topic: TopicInfo | undefined, partition: number, req: ShareFetchInput): number {
    if (!topic) return ErrorCode.UNKNOWN_TOPIC_ID;
    if (!req.mayRead(topic.name)) return ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    if (partition < 0 || partition >= topic.partitionCount) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    if (req.leads && !req.leads(topic.name, partition)) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    return ErrorCode.NONE;
  }

  /**
   * One pass over the session's partitions in Kafka's order (share-fetch-order.ts: rotated by the
   * session epoch, share-partitions to create read only while nothing was acquired); returns how
   * many records were acquired.
   */
  private async acquire(
    req: ShareFetchInput,
    settings: ShareGroupSettings,
    keys: string[],
    topicOf: (id: string) => Promise<TopicInfo | undefined>,
    answerFor: (topicId: string, partition: number) => SharePartitionAnswer,
  ): Promise<number> {
    let left = req.maxRecords > 0 ? req.maxRecords : 500;
    // MaxBytes 0 acquires nothing, as in Kafka (librdkafka's fetch.max.bytes=0 test relies on it).
    let bytesLeft = req.maxBytes;
    let total = 0;
    const split = (k: string) => {
      const [topicId, part] = k.split('\u0000');
      return { topicId: topicId!, partition: Number(part) };
    };
    const isReady = (k: string) => {
      const { topicId, partition } = split(k);
      return this.deps.partitions.peek(req.groupId, topicId, partition) !== undefined;
    };
    const plan = fetchPlan(keys, req.shareSessionEpoch, isReady);
    // Kafka's DelayedShareFetch reads only the partitions it can acquire (acquirablePartitions): a
    // share-partition at its in-flight limit (canAcquireRecords) is not read, and MaxBytes is split
    // evenly between the rest (PartitionMaxBytesStrategy UNIFORM). A share-partition this fetch
    // creates is not among them: a fetch with none ready reads those one at a time.
    const now = this.deps.now();
    // Each partition's topic and error, found once for both passes.
    const checked = new Map<string, { topic: TopicInfo | undefined; err: number }>();
    const acquirable = new Set<string>();
    for (const step of plan) {
      const { topicId, partition } = split(step.key);
      const topic = await topicOf(topicId);
      const err = this.partitionError(topic, partition, req);
      checked.set(step.key, { topic, err });
      if (step.create || err !== ErrorCode.NONE) continue;
      const state = await this.deps.partitions.peek(req.groupId, topicId, partition);
      if (state?.canAcquireRecords(now)) acquirable.add(step.key);
    }
    const partitionMaxBytes = Math.floor(req.maxBytes / Math.max(1, acquirable.size));
    for (const step of plan) {
      const { topicId, partition } = split(step.key);
      const { topic, err } = checked.get(step.key)!;
      if (err !== ErrorCode.NONE) {
        answerFor(topicId, partition).errorCode = err;
        continue;
      }
      const readable = left > 0 && bytesLeft > 0 && !(step.create && total > 0);
      const state = await this.deps.partitions.get(req.groupId, topic!, partition);
      if (!readable) continue;
      if (step.create ? !state.canAcquireRecords(this.deps.now()) : !acquirable.has(step.key)) continue;
      const limits = { maxRecords: left, maxBytes: Math.min(partitionMaxBytes, bytesLeft), minOneBatch: total === 0 };
      const got = await acquireFromPartition(
        this.deps,
        req.memberId,
        settings,
        topic!,
        partition,
        state,
        limits,
        req.memory,
      );
      if (got.errorCode !== ErrorCode.NONE) answerFor(topicId, partition).errorCode = got.errorCode;
      if (got.changed) this.deps.partitions.changed(req.groupId, topicId, partition, state);
      if (got.ranges.length === 0) continue;
      const a = answerFor(topicId, partition);
      a.records = got.batches.length === 1 ? got.batches[0]! : new RecordChunks(got.batches);
      a.acquiredRecords = got.ranges.map((r) => ({
        firstOffset: BigInt(r.firstOffset),
        lastOffset: BigInt(r.lastOffset),
        deliveryCount: r.deliveryCount,
      }));
      const n = countOf(got.ranges);
      left -= n;
      total += n;
      bytesLeft -= a.records.length;
    }
    return total;
  }
}
