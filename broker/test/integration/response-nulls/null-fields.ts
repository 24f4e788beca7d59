// The check the response-nulls test makes of each decoded response: which nullable records, bytes,
// array or struct fields came back null (walked with Kafka's JSON spec), and where Kafka itself
// sends null.
import { FieldSpec, MessageSpec, parseRange } from '../../../scripts/protocol-spec';

/**
 * Fields Kafka itself sends as null, by response and field path:
 * - Fetch AbortedTransactions: null for read_uncommitted reads and read errors (KafkaApis
 *   handleFetchRequest: `data.abortedTransactions.orElse(null)`; LocalLog.read fills it only for
 *   read_committed). fetch.test checks the read_committed form separately.
 */
export const KAFKA_SENDS_NULL: Record<string, string[]> = {
  FetchResponse: ['Responses.Partitions.AbortedTransactions'],
  // ConsumerGroupHeartbeatRequest.getErrorResponse leaves the assignment at its default, null.
  ConsumerGroupHeartbeatResponse: ['Assignment'],
  // ShareGroupHeartbeatRequest.getErrorResponse too; an unchanged assignment is also sent as null.
  ShareGroupHeartbeatResponse: ['Assignment'],
  // DescribeClientQuotasRequest.getErrorResponse: a refused filter answers entries null.
  DescribeClientQuotasResponse: ['Entries'],
  // KRaftMetadataCache.describeTopicResponse: no cursor once every partition is answered.
  DescribeTopicPartitionsResponse: ['NextCursor'],
};

const camel = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const inVersions = (range: string | undefined, v: number) => {
  const r = parseRange(range);
  return v >= r.min && v <= r.max;
};

/** Paths of nullable records/bytes/array/struct fields that are null in `body` (strings may be null). */
export function nullFields(
  spec: MessageSpec,
  v: number,
  fields: FieldSpec[],
  body: any,
  prefix: string,
  out: string[],
): void {
  for (const f of fields) {
    if (!inVersions(f.versions, v)) continue;
    const value = body?.[camel(f.name)];
    const p = prefix + f.name;
    const elemType = f.type.startsWith('[]') ? f.type.slice(2) : f.type;
    const sub = f.fields ?? spec.commonStructs?.find((c) => c.name === elemType)?.fields;
    if (value === null && f.type !== 'string') out.push(p);
    if (!sub || value === null || value === undefined) continue;
    for (const e of Array.isArray(value) ? value : [value]) nullFields(spec, v, sub, e, `${p}.`, out);
  }
}
