// What the crash suite (crash-run.ts) checks after every restart: the file passes quick_check,
// every acknowledged record is there once at its offset and nothing else is, the group's committed
// offsets are kept, and InitProducerId never hands out a producer id twice.
import Database from 'better-sqlite3';
import { KafkaConnection } from '../../src/client/connection';
import { initIdempotentProducer } from '../../src/client/idempotent-producer';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode, errorName } from '../../src/protocol/error-codes';
import type { FetchResponse, ListOffsetsResponse, OffsetFetchResponse } from '../../src/protocol/messages';
import { decodeRecords, splitBatches } from '../../src/protocol/record-batch';
import { recordBytes } from '../../src/protocol/records';
import { GROUP, recordValue, TOPIC } from './crash-load';
import type { CrashLoad, Fail, PartitionProducer } from './crash-load';

/** InitProducerId after a restart, checked never to hand out a producer id given before (`seen`, which it extends). */
export async function freshProducerId(
  conn: KafkaConnection,
  producerIdsSeen: Set<bigint>,
  fail: Fail,
): Promise<{ producerId: bigint; producerEpoch: number }> {
  const res = await initIdempotentProducer(conn);
  if (res.errorCode !== ErrorCode.NONE) fail(`InitProducerId failed after a restart: ${errorName(res.errorCode)}`);
  const id = res.producerId ?? -1n;
  if (producerIdsSeen.has(id))
    fail(
      `InitProducerId handed out producer id ${id} again after a restart (ids seen: ${[...producerIdsSeen].join(', ')})`,
    );
  producerIdsSeen.add(id);
  return { producerId: id, producerEpoch: res.producerEpoch ?? 0 };
}

/** The log end offset of a partition (ListOffsets latest). */
export async function logEndOffset(conn: KafkaConnection, partition: number, fail: Fail): Promise<number> {
  const res: ListOffsetsResponse = await conn.send(ApiKey.ListOffsets, conn.version(ApiKey.ListOffsets, 1, 7), {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: TOPIC, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n }] }],
  });
  const part = res.topics[0]!.partitions[0]!;
  if (part.errorCode !== ErrorCode.NONE)
    fail(`ListOffsets of ${TOPIC}/${partition} answered ${errorName(part.errorCode)}`);
  return Number(part.offset);
}

/** PRAGMA quick_check on the file, read-only, before the broker opens it again. */
export function quickCheckFile(dbFile: string, fail: Fail): void {
  const db = new Database(dbFile, { readonly: true });
  try {
    const rows = db.pragma('quick_check') as { quick_check: string }[];
    if (rows.length !== 1 || rows[0]!.quick_check !== 'ok')
      fail(`PRAGMA quick_check after a kill: ${JSON.stringify(rows)}`);
  } finally {
    db.close();
  }
}

/** Reads every partition from 0 and checks record n holds sequence n, up to the high watermark. */
export async function verifyLog(
  conn: KafkaConnection,
  producers: readonly PartitionProducer[],
  fail: Fail,
): Promise<void> {
  const v = conn.version(ApiKey.Fetch, 4, 11);
  for (const p of producers) {
    let offset = 0;
    let highWatermark = -1;
    while (highWatermark < 0 || offset < highWatermark) {
      const res: FetchResponse = await conn.send(ApiKey.Fetch, v, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 8 * 1024 * 1024,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [
          {
            topic: TOPIC,
            partitions: [
              {
                partition: p.partition,
                currentLeaderEpoch: -1,
                fetchOffset: BigInt(offset),
                logStartOffset: -1n,
                partitionMaxBytes: 8 * 1024 * 1024,
              },
            ],
          },
        ],
        forgottenTopicsData: [],
        rackId: '',
      });
      const part = res.responses[0]!.partitions[0]!;
      if (part.errorCode !== ErrorCode.NONE)
        fail(`fetch of ${TOPIC}/${p.partition} at ${offset} answered ${errorName(part.errorCode)}`);
      highWatermark = Number(part.highWatermark);
      if (offset >= highWatermark) break;
      const { batches } = splitBatches(recordBytes(part.records ?? Buffer.alloc(0)));
      if (batches.length === 0)
        fail(
          `fetch of ${TOPIC}/${p.partition} at ${offset} returned no batch below the high watermark ${highWatermark}`,
        );
      for (const batch of batches) {
        const baseOffset = Number(batch.readBigInt64BE(0));
        for (const rec of decodeRecords(batch)) {
          const at = baseOffset + rec.offsetDelta;
          if (at < offset) continue; // the first batch may start before the fetch offset
          const want = recordValue(p.partition, at).toString();
          const got = rec.value?.toString();
          if (at !== offset) fail(`${TOPIC}/${p.partition}: offset ${offset} is missing (next record is at ${at})`);
          if (got !== want)
            fail(`${TOPIC}/${p.partition} offset ${at} holds "${got}", expected "${want}" (lost or duplicated record)`);
          offset++;
        }
      }
    }
    if (highWatermark !== p.acked) {
      fail(
        `${TOPIC}/${p.partition} high watermark is ${highWatermark} after every batch was resent and acknowledged; ${p.acked} records were acknowledged`,
      );
    }
  }
}

/** The group's committed offsets are those of the last acknowledged commit or of a later one sent. */
export async function verifyCommittedOffsets(conn: KafkaConnection, load: CrashLoad, fail: Fail): Promise<void> {
  const { producers, commitAcked, commitSentMax } = load;
  const partitions = producers.length;
  const v = conn.version(ApiKey.OffsetFetch, 1, 7);
  const res: OffsetFetchResponse = await conn.send(ApiKey.OffsetFetch, v, {
    groupId: GROUP,
    topics: [{ name: TOPIC, partitionIndexes: producers.map((p) => p.partition) }],
    requireStable: false,
  });
  if ((res.errorCode ?? 0) !== ErrorCode.NONE) fail(`OffsetFetch of ${GROUP} answered ${errorName(res.errorCode!)}`);
  const answered = res.topics?.find((t) => t.name === TOPIC)?.partitions ?? [];
  if (answered.length !== partitions)
    fail(`OffsetFetch of ${GROUP} answered ${answered.length} partitions of ${TOPIC}, expected ${partitions}`);
  for (const part of answered) {
    if ((part.errorCode ?? 0) !== ErrorCode.NONE)
      fail(`OffsetFetch of ${GROUP} ${TOPIC}/${part.partitionIndex} answered ${errorName(part.errorCode!)}`);
    const committed = Number(part.committedOffset);
    const i = part.partitionIndex ?? -1;
    if (committed < commitAcked[i]! || committed > commitSentMax[i]!) {
      fail(
        `group ${GROUP} has offset ${committed} for ${TOPIC}/${i} after a restart; the last acknowledged commit was ${commitAcked[i]} and the highest sent ${commitSentMax[i]}`,
      );
    }
    commitAcked[i] = committed;
  }
}
