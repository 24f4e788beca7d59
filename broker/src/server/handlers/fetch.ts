// Fetch (key 1): v4-12 (topics by name; v13+ needs topic ids throughout). Returns stored batches
// as they were produced, without decoding them. Long-polls up to max_wait_ms until min_bytes are
// available, woken by appends (fetch-waiters.ts). max_bytes and partition_max_bytes are honoured
// except that the first batch of the first non-empty partition is always returned (KIP-74).
// No fetch sessions (KIP-227): session id 0 makes clients send full fetches. Isolation level is
// accepted; with no transactions the last stable offset is the high watermark.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { FetchRequest, FetchResponse, FetchResponsePartitionData } from '../../protocol/messages';
import type { ApiHandler, BrokerContext } from '../context';
import { partitionKey } from '../fetch-waiters';

const NO_LIMIT = 0x7fffffff;

interface Collected {
  response: FetchResponse;
  bytes: number;
  hasError: boolean;
}

function collect(broker: BrokerContext, req: FetchRequest): Collected {
  let budget = req.maxBytes ?? NO_LIMIT;
  let bytes = 0;
  let hasError = false;
  const responses = req.topics.map((t) => {
    const name = t.topic ?? '';
    const topic = broker.storage.topic(name);
    const partitions = t.partitions.map((p): FetchResponsePartitionData => {
      const base: FetchResponsePartitionData = {
        partitionIndex: p.partition,
        errorCode: ErrorCode.NONE,
        highWatermark: -1n,
        lastStableOffset: -1n,
        logStartOffset: -1n,
        abortedTransactions: null,
        preferredReadReplica: -1,
        records: null,
      };
      if (!topic || p.partition < 0 || p.partition >= topic.partitionCount) {
        hasError = true;
        return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
      }
      const limit = Math.max(0, Math.min(p.partitionMaxBytes, budget));
      const read = broker.storage.read(name, p.partition, Number(p.fetchOffset), limit);
      const hw = BigInt(read.highWatermark);
      const out = { ...base, errorCode: read.errorCode, highWatermark: hw, lastStableOffset: hw, logStartOffset: BigInt(read.logStartOffset) };
      if (read.errorCode !== ErrorCode.NONE) {
        hasError = true;
        return out;
      }
      let batches = read.batches;
      // KIP-74: only the first partition with data may exceed the limits.
      if (bytes > 0 && batches.length > 0 && batches[0]!.length > limit) batches = [];
      if (batches.length === 0) return { ...out, records: Buffer.alloc(0) };
      const records = batches.length === 1 ? batches[0]! : Buffer.concat(batches);
      bytes += records.length;
      budget -= records.length;
      return { ...out, records };
    });
    return { topic: name, topicId: t.topicId, partitions };
  });
  return { response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses }, bytes, hasError };
}

export const fetchHandler: ApiHandler<FetchRequest, FetchResponse> = {
  apiKey: ApiKey.Fetch,
  minVersion: 4,
  maxVersion: 12,
  async handle({ broker }, req) {
    const deadline = broker.now() + Math.max(0, req.maxWaitMs);
    const keys = req.topics.flatMap((t) => t.partitions.map((p) => partitionKey(t.topic ?? '', p.partition)));
    for (;;) {
      const c = collect(broker, req);
      const left = deadline - broker.now();
      if (c.bytes >= req.minBytes || c.hasError || left <= 0 || broker.fetchWaiters.isClosed) return c.response;
      await broker.fetchWaiters.wait(keys, left);
      if (broker.now() >= deadline || broker.fetchWaiters.isClosed) return collect(broker, req).response;
    }
  },
};
