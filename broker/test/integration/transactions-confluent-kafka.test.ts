// Transactions (issue 16, KIP-98/KIP-447) driven by librdkafka against the broker on SQLite:
// confluent-kafka from PyPI (librdkafka 2.16, the venv of confluent-kafka-pypi.test.ts) and Debian's
// 1.7.0 (librdkafka 2.0.2), through python/ck_transactions.py, and kcat. Commit and abort over two
// partitions, read back with both isolation levels (committed once, aborted only under
// read_uncommitted, never a marker as a record); two producers' transactions interleaved in one
// partition; a consume-transform-produce step whose send_offsets_to_transaction reaches the group
// only when its transaction commits; a zombie fenced by a second producer with its transactional.id;
// an open transaction aborted by the broker after transaction.timeout.ms. Every expectation was first
// checked against Apache Kafka 4.1 (broker/tools/kafka-oracle), offsets included: a marker takes one.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { decodeRecords } from '../../src/protocol/record-batch';
import { DEBIAN_PYTHON, describeWithTools, requireTools } from '../support/external-tools';
import { loadLazyBrokerModules } from '../support/lazy-broker-modules';
import { kcat, run, startTestBroker, tempDir, lastJson, engineOf } from './helpers';
import { venvPython } from './python-venv';

const REQUIREMENTS = path.join(__dirname, 'python', 'requirements-pypi.txt');
const SCRIPT = path.join(__dirname, 'python', 'ck_transactions.py');
/** How often the broker looks for timed-out transactions here (Kafka's default: 10 s). */
const TXN_CLEANUP_INTERVAL_MS = 500;

type Rec = [partition: number, offset: number, value: string | null];

const byPartitionOffset = (records: Rec[]) => [...records].sort((a, b) => a[0] - b[0] || a[1] - b[1]);

/** The records transaction `label` of commit-abort wrote: 3 per partition at 4k..4k+2 (a marker at 4k+3). */
const txnRecords = (label: string, k: number): Rec[] =>
  [0, 1].flatMap((p) => [0, 1, 2].map((i): Rec => [p, 4 * k + i, `${label} ${p} ${i}`]));

/** confluent-kafka from PyPI (librdkafka 2.16) and Debian's 1.7.0 (librdkafka 2.0.2, kcat's). */
const CLIENTS = [
  { label: 'PyPI', tool: 'python3-venv', python: () => venvPython(REQUIREMENTS) },
  { label: 'Debian', tool: 'python3-kafka', python: async () => DEBIAN_PYTHON },
] as const;

describe.each(CLIENTS)(
  'transactions with librdkafka (confluent-kafka from $label, kcat)',
  ({ tool, python: getPython }) => describeWithTools(tool)('', () => suite(getPython)),
);

// A suite's tests run at once (it.concurrent): each has its own topics, transactional ids and
// groups, and its time is spent waiting on client processes and the broker, not computing. The
// broker's lazily loaded modules are loaded first (support/lazy-broker-modules.ts says why).
function suite(getPython: () => Promise<string>) {
  let python: string;
  let broker: RunningBroker;
  const tmp = tempDir();
  const url = `sqlite://${path.join(tmp.dir, 'txn.db')}`;
  const bootstrap = () => `127.0.0.1:${broker.port}`;
  const ck = async (args: string[], timeoutMs = 60_000) =>
    lastJson(
      `ck_transactions.py ${args[0]}`,
      await run(python, [SCRIPT, args[0]!, bootstrap(), ...args.slice(1)], { timeoutMs }),
    );
  const read = async (topic: string, isolation: 'read_committed' | 'read_uncommitted', start?: number) => {
    const out = await ck(['read', topic, isolation, '30', ...(start === undefined ? [] : [String(start)])]);
    expect({ errors: out.errors, eof: out.eof }).toEqual({ errors: [], eof: out.partitions });
    return byPartitionOffset(out.records);
  };

  beforeAll(async () => {
    loadLazyBrokerModules();
    python = await getPython();
    const r = await run(python, [
      '-c',
      'import confluent_kafka as c; from importlib.metadata import version; print(version("confluent-kafka"), "with librdkafka", c.libversion()[0])',
    ]);
    console.log(`transactions-confluent-kafka.test.ts: confluent-kafka ${r.stdout.trim()}`);
    broker = await startTestBroker(url, {
      // The setting the coordinator's timeout timer reads (transaction.abort.timed.out.transaction.cleanup.interval.ms).
      // Groups form at once: each consume-transform-produce consumer is its group's only member
      // (it waited the 3 s group.initial.rebalance.delay.ms for no one).
      config: { transactionCleanupIntervalMs: TXN_CLEANUP_INTERVAL_MS, groupInitialRebalanceDelayMs: 0 },
    });
  }, 360_000);
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it.concurrent(
    'commits and aborts over two partitions: read_committed gets the committed records once, read_uncommitted all, markers never',
    async () => {
      const topic = 'ck-txn-commit-abort';
      const produced = await ck(['commit-abort', topic, 'ck-txn-ca']);
      expect(produced.errors).toEqual([]);
      const committed1 = txnRecords('committed-1', 0);
      const aborted = txnRecords('aborted', 1);
      const committed2 = txnRecords('committed-2', 2);
      expect(produced.delivered).toEqual(byPartitionOffset([...committed1, ...aborted, ...committed2]));

      expect(await read(topic, 'read_committed')).toEqual(byPartitionOffset([...committed1, ...committed2]));
      expect(await read(topic, 'read_uncommitted')).toEqual(
        byPartitionOffset([...committed1, ...aborted, ...committed2]),
      );

      // In the log: one control batch per transaction and partition, after its records (KIP-98's
      // marker: key = version 0 + type, 0 ABORT / 1 COMMIT).
      for (const partition of [0, 1]) {
        const markers = engineOf(broker)
          .read(topic, partition, 0, 1 << 30)
          .batches.filter((b) => (b.readInt16BE(21) & 0x20) !== 0)
          .map((b) => {
            const [rec] = decodeRecords(b);
            return {
              offset: Number(b.readBigInt64BE(0)),
              transactional: (b.readInt16BE(21) & 0x10) !== 0,
              type: rec!.key!.readInt16BE(2),
            };
          });
        expect(markers).toEqual([
          { offset: 3, transactional: true, type: 1 },
          { offset: 7, transactional: true, type: 0 },
          { offset: 11, transactional: true, type: 1 },
        ]);
      }
    },
    90_000,
  );

  (requireTools('kcat') ? it.concurrent : it.concurrent.skip)(
    'kcat (librdkafka 2.0) reads a committed and an aborted transaction with each isolation level',
    async () => {
      const topic = 'kcat-txn';
      expect((await ck(['commit-abort', topic, 'kcat-txn-ca'])).errors).toEqual([]);
      const kcatRead = async (isolation: string) => {
        const r = await kcat(broker, [
          '-C',
          '-t',
          topic,
          '-X',
          `isolation.level=${isolation}`,
          '-o',
          'beginning',
          '-e',
          '-q',
          '-f',
          '%p %o %s\n',
        ]);
        expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
        return r.stdout.trim().split('\n').sort();
      };
      const lines = (recs: Rec[]) => recs.map(([p, o, v]) => `${p} ${o} ${v}`).sort();
      const committed = [...txnRecords('committed-1', 0), ...txnRecords('committed-2', 2)];
      expect(await kcatRead('read_committed')).toEqual(lines(committed));
      expect(await kcatRead('read_uncommitted')).toEqual(lines([...committed, ...txnRecords('aborted', 1)]));
    },
    90_000,
  );

  it.concurrent(
    'consume-transform-produce: send_offsets_to_transaction reaches the group when the transaction commits, not when it aborts',
    async () => {
      const input = 'ck-txn-in';
      const output = 'ck-txn-out';
      const group = 'ck-txn-group';
      const fill = lastJson(
        'ck_produce.py',
        await run(python, [path.join(__dirname, 'python', 'ck_produce.py'), bootstrap(), input, 'in', '10', 'none']),
      );
      expect(fill.errors).toEqual([]);

      const out = await ck(['transform', input, output, group, 'ck-txn-transform', '4']);
      expect(out.errors).toEqual([]);
      const values = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `in ${from + i}`);
      expect(out.steps).toEqual([
        {
          committed_txn: true,
          consumed: values(0, 4).map((v, i) => [0, i, v]),
          sent_offsets: { '0': 4 },
          group_committed: { '0': 4 },
        },
        {
          committed_txn: false,
          consumed: values(4, 8).map((v, i) => [0, 4 + i, v]),
          sent_offsets: { '0': 8 },
          group_committed: { '0': 4 }, // the aborted transaction's offsets never reach the group
        },
      ]);
      // The output: the first transaction's records at 0-3 (COMMIT marker at 4), the second's at 5-8.
      const upper = (from: number, to: number, at: number): Rec[] =>
        values(from, to).map((v, i) => [0, at + i, v.toUpperCase()]);
      expect(await read(output, 'read_committed')).toEqual(upper(0, 4, 0));
      expect(await read(output, 'read_uncommitted')).toEqual([...upper(0, 4, 0), ...upper(4, 8, 5)]);

      // A plain group member of the same group resumes at the transactionally committed offset.
      const resumed = lastJson(
        'ck_group_consume.py',
        await run(
          python,
          [path.join(__dirname, 'python', 'ck_group_consume.py'), bootstrap(), input, group, '6', '30'],
          {
            timeoutMs: 60_000,
          },
        ),
      );
      expect({ values: resumed.values, errors: resumed.errors }).toEqual({ values: values(4, 10), errors: [] });
    },
    120_000,
  );

  it.concurrent(
    "interleaved transactions of two producers in one partition: each abort hides only its own producer's records, from any fetch offset",
    async () => {
      const topic = 'ck-txn-interleave';
      const out = await ck(['interleave', topic]);
      expect(out.errors).toEqual([]);
      // X and Y alternate; round 1: X aborts (marker 4), Y commits (5); round 2: Y aborts (10), X commits (11).
      const all: Rec[] = [
        [0, 0, 'x1 0'],
        [0, 1, 'y1 0'],
        [0, 2, 'x1 1'],
        [0, 3, 'y1 1'],
        [0, 6, 'y2 0'],
        [0, 7, 'x2 0'],
        [0, 8, 'y2 1'],
        [0, 9, 'x2 1'],
      ];
      expect(out.delivered).toEqual(all);
      const committed = all.filter(([, , v]) => v!.startsWith('y1') || v!.startsWith('x2'));
      expect(await read(topic, 'read_committed')).toEqual(committed);
      // From inside an aborted range: the broker must still list the transaction that began before it.
      for (const start of [2, 3, 6, 8])
        expect({ start, records: await read(topic, 'read_committed', start) }).toEqual({
          start,
          records: committed.filter(([, o]) => o >= start),
        });
      expect(await read(topic, 'read_uncommitted')).toEqual(all);
    },
    90_000,
  );

  it.concurrent(
    'fences a zombie: a second producer with the same transactional.id aborts its transaction and its commit fails fatally',
    async () => {
      const topic = 'ck-txn-fence';
      const out = await ck(['fence', topic, 'ck-txn-zombie']);
      expect(out.errors).toEqual([]);
      // The zombie's record at 0, the ABORT marker the successor's InitProducerId wrote at 1.
      expect(out.delivered).toEqual([
        [0, 0, 'zombie'],
        [0, 2, 'successor'],
      ]);
      expect(out.zombie_commit_error).toMatchObject({ name: '_FENCED', fatal: true });
      expect(await read(topic, 'read_committed')).toEqual([[0, 2, 'successor']]);
      expect(await read(topic, 'read_uncommitted')).toEqual([
        [0, 0, 'zombie'],
        [0, 2, 'successor'],
      ]);
    },
    90_000,
  );

  it.concurrent(
    'aborts a transaction left open past transaction.timeout.ms; a read_committed consumer then reads past it',
    async () => {
      const topic = 'ck-txn-timeout';
      const out = await ck(['timeout', topic, 'ck-txn-left-open', '3000', '40'], 90_000);
      expect(out.errors).toEqual([]);
      expect(out.delivered).toEqual([
        [0, 0, 'left-open 0'],
        [0, 1, 'left-open 1'],
        [0, 2, 'left-open 2'],
        [0, 3, 'after'],
      ]);
      // Until the abort, the open transaction holds the last stable offset at 0: "after" waits.
      expect(out.read_committed).toEqual(['after']);
      // The broker's abort bumped the epoch: the producer that left it open is fenced.
      expect(out.left_commit_error).toMatchObject({ name: '_FENCED', fatal: true });
      const markers = engineOf(broker)
        .read(topic, 0, 0, 1 << 30)
        .batches.filter((b) => (b.readInt16BE(21) & 0x20) !== 0)
        .map((b) => [Number(b.readBigInt64BE(0)), decodeRecords(b)[0]!.key!.readInt16BE(2)]);
      expect(markers).toEqual([[4, 0]]); // one ABORT, after "after"
    },
    120_000,
  );
}
