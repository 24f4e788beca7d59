// The steps of `minnow perf consume` on their own: positions from a Fetch response's batch
// headers, the Fetch request, and the --show-detailed-stats rows. No broker.
import type { FetchResponse } from '../../src/protocol/messages';
import { encodeRecordBatch, setBaseOffset } from '../../src/protocol/record-batch';
import { ErrorCode } from '../../src/protocol/error-codes';
import { ConsumeCounters, DetailedStatsReporter } from '../../src/perf/consume-counters';
import { advancePositions, fetchRequest, PartitionState } from '../../src/perf/consume-fetch';
import type { PerfIo } from '../../src/perf/io';

function batchAt(baseOffset: bigint, count: number): Buffer {
  const b = encodeRecordBatch({
    records: Array.from({ length: count }, () => ({ key: null, value: Buffer.from('v') })),
  });
  setBaseOffset(b, baseOffset);
  return b;
}

function response(parts: { index: number; records: Buffer | null; errorCode?: number }[]): FetchResponse {
  return {
    responses: [
      {
        topic: 't',
        partitions: parts.map((p) => ({
          partitionIndex: p.index,
          errorCode: p.errorCode ?? ErrorCode.NONE,
          records: p.records,
        })),
      },
    ],
  } as unknown as FetchResponse;
}

describe('advancePositions', () => {
  const states = (): PartitionState[] => [
    { partition: 0, leader: 1, position: 10n, end: 20n },
    { partition: 1, leader: 1, position: 0n, end: undefined },
  ];

  it("moves each partition past its response's last batch and returns the batches to count from the old position", () => {
    const s = states();
    const byPartition = new Map(s.map((x) => [x.partition, x]));
    const b1 = batchAt(10n, 3);
    const b2 = batchAt(13n, 2);
    const work = advancePositions(
      response([
        { index: 0, records: Buffer.concat([b1, b2]) },
        { index: 1, records: Buffer.alloc(0) },
        { index: 7, records: b1 }, // not ours: ignored
      ]),
      byPartition,
      't',
    );
    expect(s.map((x) => x.position)).toEqual([15n, 0n]);
    expect(work).toHaveLength(1);
    expect(work[0]).toMatchObject({ state: s[0], from: 10n });
    expect(work[0]!.batches.map((b) => b.length)).toEqual([b1.length, b2.length]);
  });

  it('never moves a position back (a batch before it, as a compacted or re-sent one)', () => {
    const s = states();
    advancePositions(response([{ index: 0, records: batchAt(2n, 3) }]), new Map(s.map((x) => [x.partition, x])), 't');
    expect(s[0]!.position).toBe(10n);
  });

  it('throws on a partition error, naming the topic, partition, position and error', () => {
    const s = states();
    expect(() =>
      advancePositions(
        response([{ index: 0, records: null, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE }]),
        new Map(s.map((x) => [x.partition, x])),
        't',
      ),
    ).toThrow('fetch t/0 at 10: OFFSET_OUT_OF_RANGE');
  });
});

describe('fetchRequest', () => {
  it('asks only for the partitions short of their end, from their positions', () => {
    const req = fetchRequest(
      't',
      [
        { partition: 0, leader: 1, position: 20n, end: 20n },
        { partition: 1, leader: 1, position: 5n, end: 20n },
        { partition: 2, leader: 1, position: 7n, end: undefined },
      ],
      { fetchMaxWaitMs: 500, fetchSizeBytes: 1 << 20 },
    );
    expect(req.topics[0]!.partitions.map((p) => [p.partition, p.fetchOffset])).toEqual([
      [1, 5n],
      [2, 7n],
    ]);
    expect(req).toMatchObject({ maxWaitMs: 500, maxBytes: 50 * 1024 * 1024, minBytes: 1 });
  });
});

describe('DetailedStatsReporter', () => {
  it('prints running totals with the interval rates; only the first row carries the rebalance time', () => {
    const lines: string[] = [];
    let now = 1000;
    const io: PerfIo = {
      out: (l) => lines.push(l),
      err: () => {},
      isTTY: false,
      now: () => now,
      wallNow: () => now,
    };
    const c = new ConsumeCounters();
    const r = new DetailedStatsReporter(io, c, 1000, 300);
    c.records = 100;
    c.bytes = 1024 * 1024;
    now = 2000;
    r.report();
    c.records = 150;
    c.bytes = 1.5 * 1024 * 1024;
    now = 3000;
    r.report();
    const cols = lines.map((l) => l.split(', ').slice(1));
    // threadId, MB total, MB/s, records total, records/s, rebalance ms, fetch ms, fetch MB/s, fetch records/s
    expect(cols[0]).toEqual(['0', '1.0000', '1.0000', '100', '100.0000', '300', '700', '1.4286', '142.8571']);
    expect(cols[1]).toEqual(['0', '1.5000', '0.5000', '150', '50.0000', '0', '1000', '0.5000', '50.0000']);
  });
});
