// Produce, Fetch and ListOffsets: acks, unknown partitions, broken batches, out-of-range offsets.
import { ApiKey } from '../../src/protocol/api-keys';
import {
  batch,
  corruptCrc,
  truncatedRecords,
  wrongRecordCount,
  type Scenario,
  type ScenarioContext,
} from '../scenario';

async function createTopic(ctx: ScenarioContext, name: string, numPartitions = 1): Promise<void> {
  await ctx.quiet(ApiKey.CreateTopics, 7, {
    topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  await ctx.waitForTopic(name);
}

const produceBody = (acks: number, parts: { topic: string; partition: number; records: Buffer | null }[]) => {
  const byTopic = new Map<string, { index: number; records: Buffer | null }[]>();
  for (const p of parts)
    byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), { index: p.partition, records: p.records }]);
  return {
    transactionalId: null,
    acks,
    timeoutMs: 10_000,
    topicData: [...byTopic].map(([name, partitionData]) => ({ name, partitionData })),
  };
};

const fetchBody = (parts: { topic: string; partition: number; offset: bigint }[], maxWaitMs = 0) => {
  const byTopic = new Map<string, { partition: number; fetchOffset: bigint; partitionMaxBytes: number }[]>();
  for (const p of parts)
    byTopic.set(p.topic, [
      ...(byTopic.get(p.topic) ?? []),
      { partition: p.partition, fetchOffset: p.offset, partitionMaxBytes: 1 << 20 },
    ]);
  return {
    replicaId: -1,
    maxWaitMs,
    minBytes: 1,
    maxBytes: 1 << 24,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1, // a sessionless full fetch (KIP-227)
    topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
    forgottenTopicsData: [],
    rackId: '',
  };
};

const listOffsetsBody = (parts: { topic: string; partition: number; timestamp: bigint }[]) => ({
  replicaId: -1,
  isolationLevel: 0,
  topics: [...new Set(parts.map((p) => p.topic))].map((name) => ({
    name,
    partitions: parts
      .filter((p) => p.topic === name)
      .map((p) => ({ partitionIndex: p.partition, currentLeaderEpoch: -1, timestamp: p.timestamp })),
  })),
});

export const dataScenarios: Scenario[] = [
  {
    name: 'produce',
    about: 'Produce v9: acks variants, unknown topic/partition, corrupt and lying batches, odd record sets',
    async run(ctx) {
      await createTopic(ctx, 'pr-a');
      const t = 'pr-a';
      const produce = (step: string, acks: number, records: Buffer | null, partition = 0, topic = t) =>
        ctx.send(step, ApiKey.Produce, 9, produceBody(acks, [{ topic, partition, records }]));
      await produce('acks=1', 1, batch(['a1', 'a2']));
      await produce('acks=-1', -1, batch(['b1']));
      await produce('acks=2 (invalid)', 2, batch(['c1']));
      await produce('acks=-2 (invalid)', -2, batch(['c2']));
      await produce('unknown partition 7', 1, batch(['d1']), 7);
      await produce('unknown topic', 1, batch(['e1']), 0, 'pr-unknown');
      await produce('corrupt CRC', 1, corruptCrc(batch(['f1'])));
      await produce('records count says 5, holds 1 (valid CRC)', 1, wrongRecordCount(batch(['g1']), 5));
      await produce('records count says 0, holds 1 (valid CRC)', 1, wrongRecordCount(batch(['g2']), 0));
      await produce('truncated last record (valid CRC)', 1, truncatedRecords(batch(['h1', 'h2']), 3));
      await produce('maxTimestamp -1', 1, batch(['i1'], { maxTimestamp: -1n }));
      await produce('null record set', 1, null);
      await produce('empty record set', 1, Buffer.alloc(0));
      await produce('three garbage bytes', 1, Buffer.from([1, 2, 3]));
      await ctx.send(
        'same partition twice in one request',
        ApiKey.Produce,
        9,
        produceBody(1, [
          { topic: t, partition: 0, records: batch(['j1']) },
          { topic: t, partition: 0, records: batch(['j2']) },
        ]),
      );
      // acks=0 has no response: send it, then look at the log end to see whether it was stored.
      await ctx.fire(ApiKey.Produce, 9, produceBody(0, [{ topic: t, partition: 0, records: batch(['k1']) }]));
      await ctx.send(
        'acks=0 then acks=1 on the same connection',
        ApiKey.Produce,
        9,
        produceBody(1, [{ topic: t, partition: 0, records: batch(['k2']) }]),
      );
      await ctx.send(
        'log end after all of the above',
        ApiKey.ListOffsets,
        7,
        listOffsetsBody([{ topic: t, partition: 0, timestamp: -1n }]),
      );
      await ctx.send('fetch everything stored', ApiKey.Fetch, 12, fetchBody([{ topic: t, partition: 0, offset: 0n }]));
    },
  },
  {
    name: 'fetch',
    about: 'Fetch v12 (and v4, the oldest Kafka 4 serves): in range, at the end, out of range, unknown, named twice',
    async run(ctx) {
      const t = 'fe-a';
      await createTopic(ctx, t, 2);
      await ctx.quiet(
        ApiKey.Produce,
        9,
        produceBody(-1, [{ topic: t, partition: 0, records: batch(['a', 'b', 'c']) }]),
      );
      const fetch = (step: string, parts: { topic: string; partition: number; offset: bigint }[], v = 12) =>
        ctx.send(step, ApiKey.Fetch, v, fetchBody(parts));
      await fetch('from offset 0', [{ topic: t, partition: 0, offset: 0n }]);
      await fetch('from offset 1 (inside the batch)', [{ topic: t, partition: 0, offset: 1n }]);
      await fetch('at the log end', [{ topic: t, partition: 0, offset: 3n }]);
      await fetch('empty partition 1', [{ topic: t, partition: 1, offset: 0n }]);
      await fetch('offset out of range (100)', [{ topic: t, partition: 0, offset: 100n }]);
      await fetch('negative offset (-1)', [{ topic: t, partition: 0, offset: -1n }]);
      await fetch('unknown partition 9', [{ topic: t, partition: 9, offset: 0n }]);
      await fetch('unknown topic', [{ topic: 'fe-unknown', partition: 0, offset: 0n }]);
      await fetch('partition named twice', [
        { topic: t, partition: 0, offset: 0n },
        { topic: t, partition: 0, offset: 1n },
      ]);
      await fetch('v4 from offset 0', [{ topic: t, partition: 0, offset: 0n }], 4);
      await fetch('v4 offset out of range', [{ topic: t, partition: 0, offset: 100n }], 4);
    },
  },
  {
    name: 'list-offsets',
    about: 'ListOffsets v7 and v1: earliest, latest, max timestamp, by timestamp, unknown',
    async run(ctx) {
      const t = 'lo-a';
      await createTopic(ctx, t, 2); // partition 1 stays empty
      // Three records at 1000, 2000, 3000 ms after the batch's base time.
      const base = 1_700_000_000_000n;
      const { encodeRecordBatch } = await import('../../src/protocol/record-batch');
      const records = encodeRecordBatch({
        records: [0, 1, 2].map((i) => ({ value: Buffer.from(`r${i}`), timestamp: base + BigInt((i + 1) * 1000) })),
      });
      await ctx.quiet(ApiKey.Produce, 9, produceBody(-1, [{ topic: t, partition: 0, records }]));
      const lo = (step: string, timestamp: bigint, partition = 0, topic = t, v = 7) =>
        ctx.send(step, ApiKey.ListOffsets, v, listOffsetsBody([{ topic, partition, timestamp }]));
      await lo('earliest (-2)', -2n);
      await lo('latest (-1)', -1n);
      await lo('max timestamp (-3)', -3n);
      await lo('by timestamp of the 2nd record', base + 2000n);
      await lo('by timestamp before all', 0n);
      await lo('by timestamp after all', base + 10_000n);
      await lo('timestamp -7 (no such sentinel)', -7n);
      await lo('max timestamp (-3) on an empty partition', -3n, 1);
      await lo('by timestamp on an empty partition', base, 1);
      await lo('v9 earliest pending upload (-5)', -5n, 0, t, 9);
      await lo('v9 earliest local (-4)', -4n, 0, t, 9);
      await lo('unknown partition 4', -1n, 4);
      await lo('unknown topic', -1n, 0, 'lo-unknown');
      await lo('v1 latest', -1n, 0, t, 1);
      await lo('v1 earliest on unknown partition', -2n, 3, t, 1);
    },
  },
  {
    name: 'delete-records',
    about: 'DeleteRecords v2: inside the log, to the end (-1), past the end, unknown topic and partition',
    async run(ctx) {
      const t = 'dr-a';
      await createTopic(ctx, t);
      await ctx.quiet(
        ApiKey.Produce,
        9,
        produceBody(-1, [{ topic: t, partition: 0, records: batch(['a', 'b', 'c', 'd']) }]),
      );
      const del = (step: string, offset: bigint, partitionIndex = 0, name = t) =>
        ctx.send(step, ApiKey.DeleteRecords, 2, {
          topics: [{ name, partitions: [{ partitionIndex, offset }] }],
          timeoutMs: 10_000,
        });
      await del('delete before offset 1', 1n);
      await del('delete before offset 0 (behind the start now)', 0n);
      await del('delete past the end (10)', 10n);
      await del('delete everything (-1 = high watermark)', -1n);
      await del('offset -5', -5n);
      await del('unknown partition 3', 1n, 3);
      await del('unknown topic', 1n, 0, 'dr-unknown');
      await ctx.send(
        'earliest after the deletes',
        ApiKey.ListOffsets,
        7,
        listOffsetsBody([{ topic: t, partition: 0, timestamp: -2n }]),
      );
      await ctx.send(
        'fetch from 0 after the deletes',
        ApiKey.Fetch,
        12,
        fetchBody([{ topic: t, partition: 0, offset: 0n }]),
      );
    },
  },
];
