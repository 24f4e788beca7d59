// Produce (key 0): advertised v0-12 (librdkafka checks compression support against Produce v0,
// docs/clients.md note 1), served v3-12: v0-2 carry the old message formats and get UNSUPPORTED_VERSION
// on every partition, not up-converted: Kafka 4.0 refuses them too (KIP-896, KAFKA-18659), and the
// clients that send them without negotiating are sarama <= 1.27.0 with its default config.Version
// and Java clients before 0.10.2 (old-message-formats.ts has the evidence).
// v12 is v11 whose transactional batches add their partitions to the transaction (KIP-890 part 2,
// produce-txn-add.ts). acks 0/1/-1; answered only after the storage transaction committed (group commit, append-queue.ts).
// A transactional batch of a fenced (older) epoch gets storage's INVALID_PRODUCER_EPOCH in every
// version, never PRODUCER_FENCED: Kafka's ProducerAppendInfo answers so since 2.7 (KIP-588), and
// AddPartitionsToTxnManager maps its verification's PRODUCER_FENCED to it too.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  ProduceRequest,
  ProduceRequestTopicProduceData,
  ProduceResponse,
  ProduceResponsePartitionProduceResponse,
} from '../../protocol/messages';
import { isTransactional } from '../../protocol/record-batch';
import type { SpaceCheck } from '../../storage/disk-space';
import type { PartitionAppend, PartitionAppendResult } from '../../storage/storage';
import type { TopicInfo } from '../../storage/topic-store';
import { cachedBrokerTopicDefaults, memoizedBrokerTopicDefaults } from '../topic-defaults-memo';
import type { ApiHandler, BrokerContext, RequestContext } from '../context';
import type { ProduceTurn } from '../produce-order';
import { inflateOffLoop } from '../produce-inflation';
import type { RecordError } from '../produce-batch-check';
import { producedPartitions } from '../produce-partitions';
import { producePolicy } from '../produce-policy';
import { validateProduceRecords } from '../produce-validation';
import { may } from './authz';
import { addProducePartitions, IMPLICIT_ADD_PRODUCE_VERSION } from '../produce-txn-add';
import { isInternalTopic } from '../topic-names';

const MIN_SERVED_VERSION = 3;

const failed = (
  index: number,
  errorCode: number,
  errorMessage: string | null,
  recordErrors: RecordError[] = [],
): ProduceResponsePartitionProduceResponse => ({
  index,
  errorCode,
  baseOffset: -1n,
  logAppendTimeMs: -1n,
  logStartOffset: -1n,
  recordErrors,
  errorMessage,
});

export const produceHandler: ApiHandler<ProduceRequest, ProduceResponse> = {
  apiKey: ApiKey.Produce,
  minVersion: 0,
  maxVersion: 12,
  handle(ctx, req) {
    // Taken before the first await: this request enters the append queue after the connection's
    // earlier ones (produce-order.ts).
    return produce(ctx, req, ctx.produceOrder?.take());
  },
};

/** A storage answer that may or may not be a promise: awaited only when it is (an await costs a promise and a turn). */
type Maybe<T> = T | Promise<T>;

async function produce(
  ctx: RequestContext,
  req: ProduceRequest,
  turn: ProduceTurn | undefined,
): Promise<ProduceResponse | null> {
  try {
    return await produceInTurn(ctx, req, turn);
  } finally {
    turn?.release();
  }
}

async function produceInTurn(
  ctx: RequestContext,
  req: ProduceRequest,
  turn: ProduceTurn | undefined,
): Promise<ProduceResponse | null> {
  const { broker, apiVersion } = ctx;
  const requested = producedPartitions(req.topicData);
  const responses: ProduceResponse['responses'] = [];
  // Authorization as KafkaApis.handleProduceRequest: transactional records need WRITE on their
  // transactional id (else the whole request fails), each topic needs WRITE (else its partitions
  // get TOPIC_AUTHORIZATION_FAILED, before any other check, so nothing is told of a topic's existence).
  if (
    hasTransactionalBatch(requested) &&
    (req.transactionalId == null || !may(ctx, 'WRITE', 'TRANSACTIONAL_ID', req.transactionalId))
  ) {
    if (req.acks === 0) return null;
    for (const { name, partitionData } of requested)
      responses.push({
        name,
        partitionResponses: partitionData.map((p) =>
          failed(p.index, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, null),
        ),
      });
    return { responses, throttleTimeMs: 0 };
  }
  let appends: PartitionAppend[] = [];
  /** The response entry of each append, filled in once the transaction committed. */
  let pending: ProduceResponsePartitionProduceResponse[] = [];
  const ackError =
    apiVersion < MIN_SERVED_VERSION
      ? {
          code: ErrorCode.UNSUPPORTED_VERSION,
          msg: `Produce v${apiVersion} (message format v0/v1) is not supported; use v3 or later`,
        }
      : req.acks !== 0 && req.acks !== 1 && req.acks !== -1
        ? { code: ErrorCode.INVALID_REQUIRED_ACKS, msg: `acks=${req.acks}; expected 0, 1 or -1` }
        : null;
  // Dynamic broker configs (message.max.bytes ...) are the defaults of topics without an override.
  // Read once a request, without an await while the memo is fresh (broker-configs.ts).
  let defaults: Readonly<Record<string, string>> | undefined;
  // Below the free-space floor (MINNOW_MIN_FREE_BYTES) every partition is refused with
  // POLICY_VIOLATION and "disk full: N bytes free on PATH, floor M". Not Kafka's
  // KAFKA_STORAGE_ERROR: that one is retriable, so producers retried it in silence until their
  // delivery timeout (5 minutes for kafkajs, 2 for Java). POLICY_VIOLATION is not retriable in
  // the Java client, librdkafka and kafkajs, and they show the message: the broker's space
  // policy refused the write, until records are deleted or the volume grows. Checked after
  // validation, so a bad batch still gets its own error.
  let diskCheck: SpaceCheck | null | undefined;
  for (let t = 0; t < requested.length; t++) {
    const { name, partitionData } = requested[t]!;
    const found: Maybe<TopicInfo | undefined> = broker.storage.topic(name);
    const topic = found instanceof Promise ? await found : found;
    const out: ProduceResponsePartitionProduceResponse[] = [];
    responses.push({ name, partitionResponses: out });
    const writable = may(ctx, 'WRITE', 'TOPIC', name);
    // ReplicaManager.appendToLocalLog: clients may not append to internal topics.
    const internal = isInternalTopic(name);
    for (let p = 0; p < partitionData.length; p++) {
      const { index, records } = partitionData[p]!;
      if (!writable) {
        out.push(failed(index, ErrorCode.TOPIC_AUTHORIZATION_FAILED, null));
        continue;
      }
      if (ackError) {
        out.push(failed(index, ackError.code, ackError.msg));
        continue;
      }
      if (!topic || index < 0 || index >= topic.partitionCount) {
        out.push(failed(index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null));
        continue;
      }
      if (internal) {
        out.push(failed(index, ErrorCode.INVALID_TOPIC_EXCEPTION, `Cannot append to internal topic ${name}`));
        continue;
      }
      defaults ??=
        memoizedBrokerTopicDefaults(broker.storage, broker.identity.nodeId) ??
        (await cachedBrokerTopicDefaults(broker.storage, broker.identity.nodeId));
      const policy = producePolicy(topic.configs, apiVersion, broker.now(), defaults);
      const partitionName = policy.compacted ? `${name}-${index}` : '';
      let check = validateProduceRecords(records, policy, partitionName);
      // A batch too large to inflate on the event loop is inflated off it, then validated again.
      if (!check.ok && check.inflate)
        check = validateProduceRecords(records, policy, partitionName, await inflateOffLoop(check.inflate));
      if (!check.ok) {
        broker.logger.debug('produce rejected', {
          topic: name,
          partition: index,
          errorCode: check.errorCode,
          reason: check.message,
        });
        const entry = failed(index, check.errorCode, check.message, check.recordErrors);
        const logStart = check.withLogStartOffset
          ? (await broker.storage.offsets(name, index))?.logStartOffset
          : undefined;
        if (logStart !== undefined) entry.logStartOffset = BigInt(logStart);
        out.push(entry);
        continue;
      }
      const space = (diskCheck ??= broker.diskSpace?.check() ?? null);
      if (space && !space.ok) {
        out.push(failed(index, ErrorCode.POLICY_VIOLATION, space.message));
        continue;
      }
      appends.push({ topic: name, partition: index, batches: check.batches, logAppendTime: policy.logAppendTime });
      const entry = failed(index, ErrorCode.UNKNOWN_SERVER_ERROR, null);
      pending.push(entry);
      out.push(entry);
    }
  }
  if (apiVersion >= IMPLICIT_ADD_PRODUCE_VERSION && req.transactionalId != null && appends.length > 0) {
    // Transaction version 2: these partitions join the transaction here (produce-txn-add.ts).
    const refused = await addProducePartitions(broker.transactions, req.transactionalId, appends);
    for (const [i, errorCode] of refused) {
      const { topic, partition } = appends[i]!;
      const errorMessage = `adding ${topic}-${partition} to transaction "${req.transactionalId}" failed with error ${errorCode}`;
      Object.assign(pending[i]!, { errorCode, errorMessage });
    }
    const kept = (_: unknown, i: number) => !refused.has(i);
    appends = appends.filter(kept);
    pending = pending.filter(kept);
  }
  if (appends.length > 0) {
    if (turn?.ready) await turn.ready;
    const appended = broker.appendQueue.append(appends); // enters the queue synchronously
    turn?.release();
    const results = await appended;
    if (broker.metrics) countStored(broker.metrics, appends, results);
    for (let i = 0; i < results.length; i++) {
      const r = results[i]!;
      const entry = pending[i]!;
      const verification = refusedByVerification(appends[i]!, r);
      entry.errorCode = verificationError(r.errorCode, verification, apiVersion);
      entry.baseOffset = BigInt(r.baseOffset);
      entry.logAppendTimeMs = BigInt(r.logAppendTimeMs);
      entry.logStartOffset = verification ? -1n : BigInt(r.logStartOffset);
      entry.errorMessage = r.errorMessage;
    }
  }
  if (req.acks === 0) return null;
  return { responses, throttleTimeMs: 0 };
}

/**
 * minnow_bytes_in_total / minnow_records_in_total: the batches of the partitions that were stored.
 * A retried batch the producer state recognises (answered with its first offset, not stored again)
 * is counted again: the append result does not tell it apart, and such retries are rare.
 */
function countStored(
  metrics: NonNullable<BrokerContext['metrics']>,
  appends: readonly PartitionAppend[],
  results: readonly PartitionAppendResult[],
): void {
  let bytes = 0;
  let records = 0;
  for (let i = 0; i < results.length; i++) {
    if (results[i]!.errorCode !== ErrorCode.NONE) continue;
    for (const b of appends[i]!.batches) {
      bytes += b.data.length;
      records += b.header.recordsCount;
    }
  }
  metrics.stored(bytes, records);
}

/** Byte offset of a v2 batch's attributes, and its transactional bit (RecordBatch.TRANSACTIONAL_FLAG_MASK). */
const ATTRIBUTES_OFFSET = 21;
const TRANSACTIONAL_FLAG = 0x10;
const MAGIC_OFFSET = 16;

/** Kafka's RequestUtils.hasTransactionalRecords: any v2 batch with the transactional bit. */
/**
 * A transactional batch refused for its transaction (not added, fenced epoch): Kafka refuses it in
 * KIP-890's verification, before the log, so its answer carries no log start offset (-1; a log's
 * own refusals, sequence errors, carry it).
 */
function refusedByVerification(append: PartitionAppend, r: PartitionAppendResult): boolean {
  return (
    (r.errorCode === ErrorCode.INVALID_TXN_STATE || r.errorCode === ErrorCode.INVALID_PRODUCER_EPOCH) &&
    append.batches.some((b) => isTransactional(b.header.attributes))
  );
}

/**
 * A partition not in the producer's transaction is TRANSACTION_ABORTABLE for Produce v11+ (KIP-890:
 * the producer aborts and goes on) and INVALID_TXN_STATE before, as Kafka's AddPartitionsToTxnManager
 * answers its verification (npm run compat, scenario transactions-v2).
 */
function verificationError(errorCode: number, verification: boolean, apiVersion: number): number {
  return verification && errorCode === ErrorCode.INVALID_TXN_STATE && apiVersion >= 11
    ? ErrorCode.TRANSACTION_ABORTABLE
    : errorCode;
}

function hasTransactionalBatch(requested: readonly ProduceRequestTopicProduceData[]): boolean {
  for (const { partitionData } of requested) {
    for (const { records } of partitionData) {
      if (!records) continue;
      // Walk the batches by their length field; a malformed tail is validation's business.
      for (let at = 0; at + ATTRIBUTES_OFFSET + 2 <= records.length; at += 12 + records.readInt32BE(at + 8)) {
        if (records[at + MAGIC_OFFSET] === 2 && records.readInt16BE(at + ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG)
          return true;
        if (records.readInt32BE(at + 8) < 0) break;
      }
    }
  }
  return false;
}
