// Error answers of the APIs that name topic partitions (Produce, Fetch, ListOffsets, DeleteRecords)
// and of Metadata: the request's topics and partitions echoed, each with the error. As Kafka's
// ProduceRequest/FetchRequest/ListOffsetsRequest/DeleteRecordsRequest/MetadataRequest.getErrorResponse
// (clients/src/main/java/org/apache/kafka/common/requests/).
import type {
  DeleteRecordsRequest,
  DeleteRecordsResponse,
  FetchRequest,
  FetchResponse,
  ListOffsetsRequest,
  ListOffsetsResponse,
  MetadataRequest,
  MetadataResponse,
  ProduceRequest,
  ProduceResponse,
} from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import { controllerId, liveBrokers } from '../cluster-answers';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../handlers/metadata';
import type { ErrorAnswerBuilder } from './types';

/** acks=0 wants no answer: null, and the connection closes so the client notices (Kafka does the same). */
export const produceError: ErrorAnswerBuilder<ProduceRequest, ProduceResponse> = (req, _v, e) =>
  req.acks === 0
    ? null
    : {
        throttleTimeMs: 0,
        responses: req.topicData.map((t) => ({
          name: t.name,
          partitionResponses: t.partitionData.map((p) => ({
            index: p.index,
            errorCode: e.code,
            baseOffset: -1n,
            logAppendTimeMs: -1n,
            logStartOffset: -1n,
            recordErrors: [],
            errorMessage: e.message,
          })),
        })),
      };

/**
 * The top-level error (v7+) and every requested partition with it. Kafka leaves the partitions out
 * from v13 (the top-level code suffices for its Java client); they stay here because librdkafka
 * backs off and refreshes the leader per partition, and would otherwise fetch again at once.
 */
export const fetchError: ErrorAnswerBuilder<FetchRequest, FetchResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  sessionId: req.sessionId ?? 0,
  responses: req.topics.map((t) => ({
    topic: t.topic,
    topicId: t.topicId,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partition,
      errorCode: e.code,
      highWatermark: -1n,
      lastStableOffset: -1n,
      logStartOffset: -1n,
      abortedTransactions: [],
      preferredReadReplica: -1,
      records: Buffer.alloc(0),
    })),
  })),
});

export const listOffsetsError: ErrorAnswerBuilder<ListOffsetsRequest, ListOffsetsResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  topics: req.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partitionIndex,
      errorCode: e.code,
      oldStyleOffsets: [],
      timestamp: -1n,
      offset: -1n,
      leaderEpoch: -1,
    })),
  })),
});

export const deleteRecordsError: ErrorAnswerBuilder<DeleteRecordsRequest, DeleteRecordsResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  topics: req.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: e.code })),
  })),
});

/**
 * Every named topic with the error. Kafka's answer lists no brokers; this one keeps the live brokers
 * (known without storage) so a client does not drop its only bootstrap address. "All topics" (null,
 * or [] at v0) has no names to echo: no topics, as in Kafka.
 */
export const metadataError: ErrorAnswerBuilder<MetadataRequest, MetadataResponse> = (req, v, e, ctx) => ({
  throttleTimeMs: 0,
  brokers: liveBrokers(ctx),
  clusterId: ctx.broker.identity.clusterId,
  controllerId: controllerId(ctx.broker),
  topics: (req.topics ?? []).map((t) => ({
    errorCode: e.code,
    // A null name cannot be sent before v12 (Kafka sends "").
    name: t.name ?? (v >= 12 ? null : ''),
    topicId: t.topicId ?? ZERO_UUID,
    isInternal: false,
    partitions: [],
    topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  })),
  clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
});
