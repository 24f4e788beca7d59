// ListOffsets v0 (Kafka 3.9's handleListOffsetRequestV0, gone in 4.0 by KIP-896): for each
// partition up to maxNumOffsets offsets, newest first, in oldStyleOffsets. Kafka answers from its
// log segments (UnifiedLog.legacyFetchOffsetsBefore): each segment's base offset with the segment
// file's last-modified time, plus (log end offset, now) when the active segment holds data.
// -1 (latest) starts from the last entry, -2 (earliest) from the first, a time T from the last entry
// not newer than T; other negative times get UNSUPPORTED_VERSION.
//
// minnow has no segment files: the partition is one segment whose base is the log start offset and
// whose last-modified time is the largest record timestamp of the last batch (the append time with
// LogAppendTime), so -1 answers [log end, log start] and -2 [log start], as a one-segment Kafka log.
import { ErrorCode } from '../../protocol/error-codes';
import type { ListOffsetsResponseListOffsetsPartitionResponse } from '../../protocol/messages';
import { decodeRecords, readBatchHeader, timestampType, TimestampType } from '../../protocol/record-batch';
import type { BrokerContext } from '../context';

const LATEST = -1n;
const EARLIEST = -2n;

/** The offsets Kafka's legacyFetchOffsetsBefore returns for a log of one segment. */
export function legacyOffsets(
  entries: readonly { offset: number; timeMs: number }[],
  timestamp: bigint,
  maxNumOffsets: number,
): number[] {
  let start: number;
  if (timestamp === LATEST) start = entries.length - 1;
  else if (timestamp === EARLIEST) start = 0;
  else {
    start = entries.length - 1;
    while (start >= 0 && BigInt(entries[start]!.timeMs) > timestamp) start--;
  }
  const out: number[] = [];
  for (let i = start; i >= 0 && out.length < maxNumOffsets; i--) out.push(entries[i]!.offset);
  return out;
}

export async function listOffsetsV0(
  broker: BrokerContext,
  topic: string,
  partitionIndex: number,
  timestamp: bigint,
  maxNumOffsets: number,
): Promise<ListOffsetsResponseListOffsetsPartitionResponse> {
  const answer = (errorCode: number, offsets: number[] = []) => ({
    partitionIndex,
    errorCode,
    oldStyleOffsets: offsets.map(BigInt),
    timestamp: -1n,
    offset: -1n,
    leaderEpoch: -1,
  });
  if (timestamp < EARLIEST) return answer(ErrorCode.UNSUPPORTED_VERSION);
  const offsets = await broker.storage.offsets(topic, partitionIndex);
  if (!offsets) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  // Kafka sizes its answer array with maxNumOffsets: a negative one fails the partition.
  if (maxNumOffsets < 0) return answer(ErrorCode.UNKNOWN_SERVER_ERROR);
  const { logStartOffset, highWatermark } = offsets;
  const timeMs = await lastModifiedMs(broker, topic, partitionIndex, highWatermark);
  const entries = [{ offset: logStartOffset, timeMs }];
  if (highWatermark > logStartOffset) entries.push({ offset: highWatermark, timeMs: broker.now() });
  return answer(ErrorCode.NONE, legacyOffsets(entries, timestamp, maxNumOffsets));
}

/** The one segment's last-modified time: the newest record time in the last batch, -1 if none. */
async function lastModifiedMs(
  broker: BrokerContext,
  topic: string,
  partition: number,
  highWatermark: number,
): Promise<number> {
  if (highWatermark === 0) return -1;
  const data = (await broker.storage.read(topic, partition, highWatermark - 1, 1)).batches.at(-1);
  if (!data) return -1;
  const h = readBatchHeader(data);
  if (timestampType(h.attributes) === TimestampType.LogAppendTime) return Number(h.maxTimestamp);
  // Not the header's maxTimestamp: some clients leave it -1 (sarama before 1.45.1).
  return decodeRecords(data).reduce((max, r) => Math.max(max, Number(h.baseTimestamp) + r.timestampDelta), -1);
}
