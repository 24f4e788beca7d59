// What minnow_request_errors_total and minnow_bytes_out_total read from a response body, before it
// is encoded. Kafka reports outcomes as error codes at any depth of a response (top level, per
// topic, per partition, per config ...), always in int16 fields named ErrorCode or *ErrorCode
// (PartitionErrorCode, TopicConfigErrorCode, AcknowledgeErrorCode in Kafka's JSON specs), which the
// codec calls errorCode / *ErrorCode. So one walk over the body finds them all, for every API,
// without a list per API to keep up to date.
import type { FetchResponse } from '../../protocol/messages';

/**
 * The distinct non-zero error codes anywhere in `body`, each once, in the order first seen: a
 * Produce answering UNKNOWN_TOPIC_OR_PARTITION on 100 partitions counts one such response. Record
 * sets (Buffers) and arrays of scalars are skipped, so the walk costs one step per object in the
 * response, not per byte.
 */
export function responseErrorCodes(body: unknown): number[] {
  const found: number[] = [];
  visit(body, found);
  return found;
}

function visit(value: unknown, found: number[]): void {
  if (Array.isArray(value)) {
    // Arrays hold either objects (topics, partitions ...) or scalars (replica ids): look at the first.
    if (value.length === 0 || typeof value[0] !== 'object') return;
    for (const item of value) visit(item, found);
    return;
  }
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
  const o = value as Record<string, unknown>;
  for (const key in o) {
    const v = o[key];
    if (typeof v === 'number') {
      if (v !== 0 && isErrorCodeKey(key) && !found.includes(v)) found.push(v);
    } else if (typeof v === 'object' && v !== null) {
      visit(v, found);
    }
  }
}

const isErrorCodeKey = (key: string) => key === 'errorCode' || key.endsWith('ErrorCode');

/** Record-batch bytes a Fetch response carries (what the client receives, after any throttling). */
export function fetchRecordBytes(body: FetchResponse): number {
  let bytes = 0;
  for (const t of body.responses) for (const p of t.partitions) bytes += p.records?.length ?? 0;
  return bytes;
}
