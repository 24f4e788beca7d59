// `minnow perf produce --transactional-id x --transaction-batches 10` against a broker on SQLite:
// every record arrives for a read_committed consumer and every transaction ends with a COMMIT
// marker; then `minnow transactions list|describe` (runTransactionsCommand) on what it left, and
// on an open transaction of a kafkajs producer.
import { Kafka, logLevel, Producer } from 'kafkajs';
import { KafkaClient } from '../../src/client/client';
import { DESCRIBE_HEADERS, formatTable, LIST_HEADERS, runTransactionsCommand } from '../../src/cli/transactions';
import { parseProduceArgs, ProduceOptions } from '../../src/perf/options';
import { runProducePerf } from '../../src/perf/producer';
import { decodeRecords, isControl, readBatchHeader, splitBatches } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { consumeValues, startTestBroker, storageUrlFor, tempDir } from './helpers';

const TOPIC = 'txn-perf';
const RECORDS = 400;
const BATCHES_PER_TXN = 10;
const OPEN_TOPIC = 'txn-open';

describe('transactional perf produce and minnow transactions', () => {
  const dir = tempDir('minnow-txn-cli-');
  let broker: RunningBroker;
  let kafka: Kafka;
  let bootstrap: string;
  let openProducer: Producer | undefined;

  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runTransactionsCommand(argv, {
      bootstrap,
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      now: Date.now,
    });
    return { code, out: out.join('\n'), err: err.join('\n'), json: () => JSON.parse(out.join('\n')) };
  };

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor('sqlite', dir.dir), { config: { groupInitialRebalanceDelayMs: 0 } });
    bootstrap = `127.0.0.1:${broker.port}`;
    kafka = new Kafka({ clientId: 'txn-cli-test', brokers: [bootstrap], logLevel: logLevel.NOTHING });
  });
  afterAll(async () => {
    await openProducer?.disconnect().catch(() => {});
    await broker.stop();
    dir.cleanup();
  });

  let committed = 0;

  it('perf produce commits every N batches; read_committed sees every record', async () => {
    const opts = parseProduceArgs(
      [
        '--bootstrap-server',
        bootstrap,
        '--topic',
        TOPIC,
        '--num-records',
        String(RECORDS),
        '--record-size',
        '50',
        // ~8 records a batch, so 50 batches: 5 transactions of 10.
        '--batch-size',
        '600',
        '--producers',
        '1',
        '--transactional-id',
        'x',
        '--transaction-batches',
        String(BATCHES_PER_TXN),
        '--report-interval',
        '1h',
      ],
      {},
    ) as ProduceOptions;
    const lines: string[] = [];
    const summary = await runProducePerf(opts, {
      out: (l) => lines.push(l),
      err: () => {},
      isTTY: false,
      now: () => performance.now(),
      wallNow: () => Date.now(),
    });
    expect(summary).toMatchObject({ records: RECORDS, errors: 0, abandoned: 0 });
    expect(summary.transactions).toMatchObject({ transactionalId: 'x', batchesPerTransaction: 10, aborted: 0 });
    committed = summary.transactions!.committed;
    expect(committed).toBeGreaterThan(1);
    expect(lines.join('\n')).toContain(
      `${committed} transactions committed, 0 aborted (10 batches each); latency to commit`,
    );
    // Every record's latency to its transaction's commit is counted (a count, not a timing).
    expect(summary.commitLatency?.count).toBe(RECORDS);

    // The log, read_uncommitted and raw: data batches, a COMMIT marker after each transaction.
    const client = new KafkaClient(bootstrap);
    try {
      const meta = await client.topic(TOPIC);
      const leader = meta.partitions[0]!.leader;
      const kinds: string[] = [];
      let dataRecords = 0;
      let offset = 0n;
      let hw = -1n;
      for (let i = 0; i < 200 && (hw < 0n || offset < hw); i++) {
        const r = await client.fetch(TOPIC, 0, leader, offset, { maxWaitMs: 10 });
        hw = r.highWatermark;
        for (const b of splitBatches(r.records ?? Buffer.alloc(0)).batches) {
          const h = readBatchHeader(b);
          if (isControl(h.attributes)) {
            const key = decodeRecords(b)[0]!.key!;
            kinds.push(key.readInt16BE(2) === 1 ? 'COMMIT' : 'ABORT');
          } else {
            kinds.push('data');
            dataRecords += h.recordsCount;
            expect(h.producerId).toBeGreaterThanOrEqual(0n);
          }
          offset = h.baseOffset + BigInt(h.lastOffsetDelta) + 1n;
        }
      }
      expect(dataRecords).toBe(RECORDS);
      expect(kinds.filter((k) => k === 'ABORT')).toEqual([]);
      expect(kinds.filter((k) => k === 'COMMIT')).toHaveLength(committed);
      expect(kinds[kinds.length - 1]).toBe('COMMIT');
      // Each transaction: 1..10 data batches, then its marker.
      const runs = kinds
        .join(' ')
        .split('COMMIT')
        .slice(0, -1)
        .map((s) => s.trim().split(' ').length);
      expect(runs.every((n) => n >= 1 && n <= BATCHES_PER_TXN)).toBe(true);
      // The high watermark counts the records and one marker per transaction.
      expect(Number(hw)).toBe(RECORDS + committed);
    } finally {
      client.close();
    }

    const consumer = kafka.consumer({ groupId: 'txn-cli-rc', readUncommitted: false, maxWaitTimeInMs: 100 });
    await consumer.connect();
    expect(await consumeValues(consumer, TOPIC, RECORDS)).toHaveLength(RECORDS);
  });

  it('gives several producers their own transactional ids, over keyed partitions', async () => {
    const opts = parseProduceArgs(
      [
        ...['--bootstrap-server', bootstrap, '--topic', 'txn-perf-keyed', '--partitions', '3', '--keys', '50'],
        ...['--num-records', '600', '--record-size', '20', '--batch-size', '400', '--producers', '2'],
        ...['--transactional-id', 'multi', '--transaction-batches', '3', '--report-interval', '1h'],
      ],
      {},
    ) as ProduceOptions;
    const io = { out: () => {}, err: () => {}, isTTY: false, now: () => performance.now(), wallNow: () => Date.now() };
    const summary = await runProducePerf(opts, io);
    expect(summary).toMatchObject({ records: 600, errors: 0, transactions: { aborted: 0 } });
    const ids = ((await cli('list', '--json')).json() as { transactionalId: string; state: string }[])
      .filter((t) => t.transactionalId.startsWith('multi'))
      .map((t) => [t.transactionalId, t.state]);
    expect(ids).toEqual([
      ['multi-0', 'CompleteCommit'],
      ['multi-1', 'CompleteCommit'],
    ]);
    const consumer = kafka.consumer({ groupId: 'txn-cli-rc-keyed', readUncommitted: false, maxWaitTimeInMs: 100 });
    await consumer.connect();
    expect(await consumeValues(consumer, 'txn-perf-keyed', 600)).toHaveLength(600);
  });

  it('lists the transactional id as kafka-transactions.sh does, and as JSON', async () => {
    const table = await cli('list');
    expect(table.code).toBe(0);
    const [header, ...rows] = table.out.split('\n');
    expect(header!.split('\t').map((c) => c.trim())).toEqual([...LIST_HEADERS, '']);
    expect(rows.map((r) => r.split('\t').map((c) => c.trim()))).toContainEqual([
      'x',
      '1',
      expect.any(String),
      'CompleteCommit',
      '',
    ]);

    const listed = ((await cli('list', '--json')).json() as { transactionalId: string; producerId: number }[]).filter(
      (t) => t.transactionalId === 'x',
    );
    expect(listed).toEqual([
      { transactionalId: 'x', coordinatorId: 1, producerId: expect.any(Number), state: 'CompleteCommit' },
    ]);
    const pid = String(listed[0]!.producerId);

    expect((await cli('list', '--json', '--state', 'CompleteCommit')).json()).toHaveLength(3);
    expect((await cli('list', '--json', '--state', 'Ongoing')).json()).toEqual([]);
    expect((await cli('list', '--json', '--producer-id', pid)).json()).toHaveLength(1);
    expect((await cli('list', '--json', '--producer-id', String(Number(pid) + 1000))).json()).toEqual([]);
    // Nothing has been open for an hour; a negative filter is no filter (kafka-transactions.sh).
    expect((await cli('list', '--json', '--duration-filter', '3600000')).json()).toEqual([]);
    expect((await cli('list', '--json', '--duration-filter', '-1')).json()).toHaveLength(3);

    const unknown = await cli('list', '--json', '--state', 'Sleeping');
    expect(unknown.code).toBe(0);
    expect(unknown.err).toContain('Sleeping');
  });

  it('describes a finished transaction', async () => {
    const table = await cli('describe', '--transactional-id', 'x');
    expect(table.code).toBe(0);
    const [header, row] = table.out.split('\n');
    expect(header!.split('\t').map((c) => c.trim())).toEqual([...DESCRIBE_HEADERS, '']);
    const cells = row!.split('\t').map((c) => c.trim());
    expect(cells.slice(0, 6)).toEqual(['1', 'x', expect.stringMatching(/^\d+$/), '0', 'CompleteCommit', '60000']);
    expect(cells[8]).toBe('');

    expect((await cli('describe', '--transactional-id', 'x', '--json')).json()).toMatchObject({
      coordinatorId: 1,
      transactionalId: 'x',
      producerEpoch: 0,
      state: 'CompleteCommit',
      transactionTimeoutMs: 60000,
      topicPartitions: [],
    });
  });

  it('describes an open transaction with its partitions and start time', async () => {
    openProducer = kafka.producer({ transactionalId: 'open-one', idempotent: true, maxInFlightRequests: 1 });
    await openProducer.connect();
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: OPEN_TOPIC, numPartitions: 2 }] });
    await admin.disconnect();
    const txn = await openProducer.transaction();
    const before = Date.now();
    await txn.send({ topic: OPEN_TOPIC, messages: [0, 1].map((partition) => ({ partition, value: `v${partition}` })) });

    const d = (await cli('describe', '--transactional-id', 'open-one', '--json')).json();
    expect(d).toMatchObject({
      transactionalId: 'open-one',
      state: 'Ongoing',
      topicPartitions: [
        { topic: OPEN_TOPIC, partition: 0 },
        { topic: OPEN_TOPIC, partition: 1 },
      ],
    });
    expect(d.transactionStartTimeMs).toBeGreaterThan(before - 60_000);
    const row = (await cli('describe', '--transactional-id', 'open-one')).out.split('\n')[1]!.split('\t');
    expect(row[4]!.trim()).toBe('Ongoing');
    expect(row[8]!.trim()).toBe(`${OPEN_TOPIC}-0,${OPEN_TOPIC}-1`);
    expect((await cli('list', '--json', '--state', 'Ongoing')).json()).toEqual([
      expect.objectContaining({ transactionalId: 'open-one', state: 'Ongoing' }),
    ]);

    await txn.abort();
    expect((await cli('describe', '--transactional-id', 'open-one', '--json')).json()).toMatchObject({
      state: 'CompleteAbort',
      topicPartitions: [],
    });
  });

  it('fails clearly, with a non-zero exit code, for an unknown transactional id', async () => {
    const r = await cli('describe', '--transactional-id', 'no-such-id');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('TRANSACTIONAL_ID_NOT_FOUND');
    expect(r.err).toContain('no-such-id');
  });
});

describe('formatTable', () => {
  it('pads each cell to its column and ends each with a tab, as ToolsUtils.prettyPrintTable', () => {
    expect(formatTable(['A', 'Long'], [['xyz', '1']])).toBe('A  \tLong\t\nxyz\t1   \t');
  });
});
