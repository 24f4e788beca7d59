import {
  consumerDetailedRow,
  CONSUMER_DETAILED_HEADER,
  CONSUMER_HEADER,
  consumerRow,
  e2eLines,
  formatTimestamp,
  producerFinalLine,
  producerProgressLine,
  progressBar,
} from '../../src/perf/report';

const l = { count: 200_000, avgMs: 35.5567, maxMs: 206, minMs: 1, p50Ms: 26, p95Ms: 89, p99Ms: 163.456, p999Ms: 184 };

describe('producer lines (kafka-producer-perf-test format)', () => {
  it('progress line', () => {
    expect(
      producerProgressLine({ records: 34518, bytes: 34518 * 1024, elapsedMs: 5008.0, avgMs: 69.83, maxMs: 206 }),
    ).toBe('34518 records sent, 6892.6 records/sec (6.73 MB/sec), 69.8 ms avg latency, 206.0 ms max latency.');
  });

  it('final line with 50th, 95th, 99th and 99.9th percentiles', () => {
    expect(producerFinalLine(200_000, 200_000 * 1024, 28_615.3, l)).toBe(
      '200000 records sent, 6989.3 records/sec (6.83 MB/sec), 35.56 ms avg latency, 206.00 ms max latency, 26.00 ms 50th, 89.00 ms 95th, 163.46 ms 99th, 184.00 ms 99.9th.',
    );
  });

  it('does not divide by zero', () => {
    expect(producerProgressLine({ records: 0, bytes: 0, elapsedMs: 0, avgMs: 0, maxMs: 0 })).toBe(
      '0 records sent, 0.0 records/sec (0.00 MB/sec), 0.0 ms avg latency, 0.0 ms max latency.',
    );
  });
});

describe('consumer lines (kafka-consumer-perf-test format)', () => {
  const time = (ms: number) => `T${ms}`;

  it('header and summary row', () => {
    expect(CONSUMER_HEADER).toBe(
      'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
    );
    expect(
      consumerRow({ startMs: 0, endMs: 2000, bytes: 100 * 1048576, records: 102_400, rebalanceMs: 400 }, time),
    ).toBe('T0, T2000, 100.0000, 50.0000, 102400, 51200.0000, 400, 1600, 62.5000, 64000.0000');
  });

  it('detailed rows: running totals, interval rates', () => {
    expect(CONSUMER_DETAILED_HEADER).toBe(
      'time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec',
    );
    expect(
      consumerDetailedRow(
        {
          timeMs: 5000,
          totalBytes: 30 * 1048576,
          totalRecords: 3000,
          bytes: 10 * 1048576,
          records: 1000,
          elapsedMs: 1000,
          rebalanceMs: 0,
        },
        time,
      ),
    ).toBe('T5000, 0, 30.0000, 10.0000, 3000, 1000.0000, 0, 1000, 10.0000, 1000.0000');
  });

  it('formats dates as Java does (yyyy-MM-dd HH:mm:ss:SSS, local time)', () => {
    const d = new Date(2024, 0, 9, 11, 43, 7, 5);
    expect(formatTimestamp(d.getTime())).toBe('2024-01-09 11:43:07:005');
  });
});

describe('other lines', () => {
  it('e2e', () => {
    expect(e2eLines(l)).toEqual([
      'Avg latency: 35.5567 ms',
      'Percentiles: 50th = 26.000, 95th = 89.000, 99th = 163.456, 99.9th = 184.000 ms (max 206.000 ms, 200000 records)',
    ]);
  });

  it('progress bar', () => {
    expect(progressBar(50, 200, 10, 10)).toBe('[==>       ]  25% 50/200 records, 10 rec/s, eta 15s');
    expect(progressBar(200, 200, 10, 10)).toBe('[==========] 100% 200/200 records, 10 rec/s, eta 0s');
    expect(progressBar(0, 200, 0, 4)).toBe('[>   ]   0% 0/200 records, 0 rec/s, eta ?');
  });
});
