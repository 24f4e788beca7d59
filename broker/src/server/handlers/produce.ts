// Produce (key 0): advertised v0-11 (librdkafka checks compression support against Produce v0,
// CLIENTS.md note 1), served v3-11: v0-2 carry the old message formats and get UNSUPPORTED_VERSION
// on every partition, not up-converted: Kafka 4.0 refuses them too (KIP-896, KAFKA-18659), and the
// clients that send them without negotiating are sarama <= 1.27.0 with its default config.Version
// and Java clients before 0.10.2 (old-message-formats.ts has the evidence).
// acks 0/1/-1; answered only after the storage transaction committed (group commit, append-queue.ts).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { ProduceRequest, ProduceResponse, ProduceResponsePartitionProduceResponse } from '../../protocol/messages';
import type { PartitionAppend } from '../../storage/storage';
import { brokerTopicDefaults } from '../broker-configs';
import type { ApiHandler } from '../context';
import { producePolicy, RecordError, validateProduceRecords } from '../produce-validation';

const MIN_SERVED_VERSION = 3;

const failed = (index: number, errorCode: number, errorMessage: string | null, recordErrors: RecordError[] = []): ProduceResponsePartitionProduceResponse => ({
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
  maxVersion: 11,
  async handle(ctx, req) {
    const { broker, apiVersion } = ctx;
    const responses = req.topicData.map((t) => ({ name: t.name, partitionResponses: [] as ProduceResponsePartitionProduceResponse[] }));
    const appends: PartitionAppend[] = [];
    /** The response entry of each append, filled in once the transaction committed. */
    const pending: ProduceResponsePartitionProduceResponse[] = [];
    const ackError =
      apiVersion < MIN_SERVED_VERSION
        ? { code: ErrorCode.UNSUPPORTED_VERSION, msg: `Produce v${apiVersion} (message format v0/v1) is not supported; use v3 or later` }
        : req.acks !== 0 && req.acks !== 1 && req.acks !== -1
          ? { code: ErrorCode.INVALID_REQUIRED_ACKS, msg: `acks=${req.acks}; expected 0, 1 or -1` }
          : null;
    // Dynamic broker configs (message.max.bytes ...) are the defaults of topics without an override.
    let defaults: Record<string, string> | undefined;
    const brokerDefaults = () => (defaults ??= brokerTopicDefaults(broker.storage, broker.identity.nodeId));
    req.topicData.forEach((t, ti) => {
      const topic = broker.storage.topic(t.name);
      for (const p of t.partitionData) {
        const out = responses[ti]!.partitionResponses;
        if (ackError) {
          out.push(failed(p.index, ackError.code, ackError.msg));
          continue;
        }
        if (!topic || p.index < 0 || p.index >= topic.partitionCount) {
          out.push(failed(p.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null));
          continue;
        }
        const policy = producePolicy(topic.configs, apiVersion, broker.now(), brokerDefaults());
        const check = validateProduceRecords(p.records, policy);
        if (!check.ok) {
          broker.logger.debug('produce rejected', { topic: t.name, partition: p.index, errorCode: check.errorCode, reason: check.message });
          out.push(failed(p.index, check.errorCode, check.message, check.recordErrors));
          continue;
        }
        appends.push({ topic: t.name, partition: p.index, batches: check.batches, logAppendTime: policy.logAppendTime });
        const entry = failed(p.index, ErrorCode.UNKNOWN_SERVER_ERROR, null);
        pending.push(entry);
        out.push(entry);
      }
    });
    if (appends.length > 0) {
      const results = await broker.appendQueue.append(appends);
      results.forEach((r, i) => {
        Object.assign(pending[i]!, {
          errorCode: r.errorCode,
          baseOffset: BigInt(r.baseOffset),
          logAppendTimeMs: BigInt(r.logAppendTimeMs),
          logStartOffset: BigInt(r.logStartOffset),
          errorMessage: r.errorMessage,
        });
      });
    }
    if (req.acks === 0) return null;
    return { responses, throttleTimeMs: 0 };
  },
};
