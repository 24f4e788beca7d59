// Produce v0-2 and Fetch v0-3 carry message sets of the old formats (magic 0 and 1). minnow keeps
// refusing them, with UNSUPPORTED_VERSION on every partition, rather than converting:
//
// - Kafka 4.0 serves neither (KIP-896): Fetch v0-3 are gone from ApiVersions, and Produce v0-2 are
//   still advertised only for librdkafka's feature check (KAFKA-18659) and then refused by
//   closing the connection. Conversion is what Kafka removed (KIP-724: down-conversion on fetch
//   cost a decode and re-encode per old reader).
// - Clients that still send them with default settings negotiate nothing: sarama up to 1.27.0
//   (default config.Version V0_8_2_0, August 2020; 1.27.1 raised it to V1_0_0_0: Produce v3,
//   Fetch v4) and the Java clients before 0.10.2 (2017). Every client that reads ApiVersions
//   (kafka-python, librdkafka, kafkajs, Java 0.10.2+, sarama 1.27.1+) picks Produce 3+ / Fetch 4+
//   here (docs/clients.md).
// - Converting means parsing magic 0/1 message sets with their nested compressed wrappers (and
//   magic 0's broken LZ4 framing, KAFKA-3160), CRC32 checks, and on every old fetch decoding the
//   stored v2 batches, dropping headers and transaction markers, and re-encoding them.
//
// The refusal is an error the client shows (sarama 1.27.0: "kafka server: The version of API is
// not supported"), never a closed connection it would retry forever: both APIs advertise v0 so
// that these requests reach their handler. Clients pick the highest version both sides support,
// so advertising v0 changes no other client's choice (broker/test/integration/sarama.test.ts).
import { ErrorCode } from '../../protocol/error-codes';
import type { FetchRequest, FetchResponse } from '../../protocol/messages';

/** The oldest Fetch version served: the first one answered with record batches (magic 2). */
export const MIN_FETCH_VERSION = 4;

export function refuseOldFetch(req: FetchRequest): FetchResponse {
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    sessionId: 0,
    responses: req.topics.map((t) => ({
      topic: t.topic,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partition,
        errorCode: ErrorCode.UNSUPPORTED_VERSION,
        highWatermark: -1n,
        lastStableOffset: -1n,
        logStartOffset: -1n,
        abortedTransactions: null,
        preferredReadReplica: -1,
        records: Buffer.alloc(0),
      })),
    })),
  };
}
