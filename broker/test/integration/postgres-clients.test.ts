// Real Kafka clients, unmodified, against ONE broker on postgres:// (issue 18): kcat (librdkafka),
// kafkajs, confluent-kafka (python) and the Java client produce and consume; a broker restart and a
// PostgreSQL crash-restart (pg_ctl -m immediate) under a running producer lose no acknowledged
// record and duplicate none. Each test names the records it lost or saw twice. The server is a
// private one (not MINNOW_TEST_PG_URL's) because the last test restarts it.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import type { Consumer } from 'kafkajs';
import type { RunningBroker } from '../../src/server/broker';
import { DEBIAN_PYTHON, describeWithTools, postgresBinDir } from '../support/external-tools';
import { runJava } from '../support/java-launch';
import { loadLazyBrokerModules } from '../support/lazy-broker-modules';
import { loadLazyKafkajsModules } from '../support/lazy-kafkajs-modules';
import { startPrivatePostgres } from '../support/postgres-server';
import type { PrivateServer } from '../support/postgres-server';
import { kcat, lastJson, QUICK_FETCH, run, setOffsets, startTestBroker } from './helpers';
import { buildDriver, driverClasspath } from './java-driver';

jest.setTimeout(60_000);

const NO_DELAY = { groupInitialRebalanceDelayMs: 0 };
const script = (name: string) => path.join(__dirname, 'python', name);

/** What went wrong between `sent` (acknowledged) and `read`: lost and duplicated values, named. */
function exactlyOnce(sent: string[], read: string[]): { lost: string[]; duplicated: string[]; unexpected: string[] } {
  const counts = new Map<string, number>();
  for (const v of read) counts.set(v, (counts.get(v) ?? 0) + 1);
  const want = new Set(sent);
  return {
    lost: sent.filter((v) => !counts.has(v)),
    duplicated: [...counts].filter(([, n]) => n > 1).map(([v, n]) => `${v} x${n}`),
    unexpected: [...counts.keys()].filter((v) => !want.has(v)),
  };
}
const CLEAN = { lost: [], duplicated: [], unexpected: [] };

/** Values a group member of `groupId` reads from `topic` (committing each one) until it has `count`, then 1 s more. */
async function groupRead(
  kafka: Kafka,
  groupId: string,
  topic: string,
  count: number,
  opts: { readUncommitted?: boolean } = {},
): Promise<string[]> {
  const consumer: Consumer = kafka.consumer({
    groupId,
    readUncommitted: opts.readUncommitted ?? false,
    ...QUICK_FETCH,
  });
  const seen: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${topic}: ${seen.length} of ${count}: ${seen}`)), 30_000);
      void consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
          seen.push(String(message.value));
          if (seen.length !== count) return;
          clearTimeout(timer);
          // Whatever arrives in the next second (a redelivery, an aborted record) is counted too.
          setTimeout(resolve, 1000);
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

describeWithTools(
  'postgresql',
  'kcat',
  'python3-kafka',
  'java',
  'mvn',
)('real clients on one broker over postgres://', () => {
  let pg: PrivateServer;
  let url: string;
  let broker: RunningBroker;
  let kafka: Kafka;
  let javaRun: Promise<{ code: number | null; stdout: string; stderr: string }>;
  const bootstrap = () => `127.0.0.1:${broker.port}`;
  const newKafka = () =>
    new Kafka({
      clientId: 'pg-clients',
      brokers: [bootstrap()],
      logLevel: logLevel.NOTHING,
      retry: { retries: 12, initialRetryTime: 100, maxRetryTime: 1000 },
    });

  beforeAll(async () => {
    // The tests that run at once must not be the first to load a module (support/lazy-*-modules.ts).
    loadLazyBrokerModules();
    loadLazyKafkajsModules();
    pg = await startPrivatePostgres(postgresBinDir());
    url = `${pg.baseUrl}/postgres`;
    broker = await startTestBroker(url, { config: NO_DELAY });
    kafka = newKafka();
    // The JVM runs alongside the tests below; its test awaits it.
    javaRun = buildDriver().then(() =>
      runJava(
        {
          classpath: driverClasspath('kafka-4'),
          main: 'minnow.javaclient.Driver',
          args: [bootstrap(), 'pgj', 'produce'],
        },
        { timeoutMs: 120_000 },
      ),
    );
    javaRun.catch(() => {});
  }, 120_000);
  afterAll(async () => {
    await javaRun?.catch(() => {});
    await broker?.stop();
    pg?.stop();
  });

  /** kcat -P exits 0 even after a fatal producer error: its stderr says what failed. */
  const kcatProduce = async (topic: string, values: string[], extra: string[]) => {
    const r = await kcat(broker, ['-P', '-t', topic, '-p', '0', '-X', 'enable.idempotence=true', ...extra], {
      input: values.join('\n') + '\n',
      timeoutMs: 60_000,
    });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  };
  const kcatRead = async (topic: string) => {
    const r = await kcat(broker, ['-C', '-t', topic, '-o', 'beginning', '-e', '-f', '%s\n']);
    expect(r.code).toBe(0);
    return r.stdout.trimEnd().split('\n');
  };
  /** exactlyOnce, and `order`: true, or where the log first differs from the send order. */
  const inOrder = (sent: string[], read: string[]) => {
    const at = read.findIndex((v, i) => v !== sent[i]);
    const order = at < 0 ? true : `log offset ${at} holds ${read[at]}, sent ${sent[at]}: ${read.slice(at, at + 8)}`;
    return { ...exactlyOnce(sent, read), order };
  };

  // The tests that only use the broker run at once (it.concurrent: jest starts them together where
  // the first of them stands, after beforeAll): each has its own topics and groups, and their time is
  // spent waiting on the broker's commits and the client processes. The two that restart the broker
  // or PostgreSQL, and the one with a 10 s answer bound, run alone after them.
  it.concurrent(
    'kcat: idempotent produce with zstd, lz4, gzip and snappy; read back once and in order, codecs kept',
    async () => {
      const CODECS = { gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;
      await broker.context.storage.createTopic('kcat-codecs', 1, {});
      const sent: string[] = [];
      for (const codec of Object.keys(CODECS)) {
        const values = Array.from({ length: 50 }, (_, i) => `${codec}-${i}`);
        await kcatProduce('kcat-codecs', values, ['-z', codec]);
        sent.push(...values);
      }
      expect(inOrder(sent, await kcatRead('kcat-codecs'))).toEqual({ ...CLEAN, order: true });
      const batches = (await broker.context.storage.read('kcat-codecs', 0, 0, 1 << 30)).batches;
      expect(new Set(batches.map((b) => b.readInt16BE(21) & 7))).toEqual(new Set(Object.values(CODECS)));
      expect(batches.every((b) => b.readBigInt64BE(43) >= 0n)).toBe(true); // idempotent: a producer id
    },
  );

  it.concurrent.each([true, false])(
    'kcat (idempotence %s): 1000 records pipelined to one partition are stored once, in order',
    async (idempotent) => {
      // One record per request, up to 5 requests in flight on one connection (librdkafka's
      // default): Kafka handles a connection's requests in order, so the log keeps the send order.
      const topic = `kcat-pipelined-${idempotent}`;
      await broker.context.storage.createTopic(topic, 1, {});
      const sent = Array.from({ length: 1000 }, (_, i) => `p${i}`);
      await kcatProduce(topic, sent, [
        '-X',
        `enable.idempotence=${idempotent}`,
        '-X',
        'linger.ms=0',
        '-X',
        'batch.num.messages=1',
      ]);
      expect(inOrder(sent, await kcatRead(topic))).toEqual({ ...CLEAN, order: true });
    },
  );

  it('kafkajs: a group commits, the broker restarts, the group resumes from its commits (no loss, no duplicate)', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'kj-resume', numPartitions: 3 }] });
    await admin.disconnect();
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    const send = async (label: string, n: number) => {
      const values = Array.from({ length: n }, (_, i) => `${label}-${i}`);
      await producer.send({
        topic: 'kj-resume',
        compression: CompressionTypes.GZIP,
        messages: values.map((value, i) => ({ key: `k${i % 5}`, value })),
      });
      return values;
    };
    const first = await send('before', 30);
    expect(exactlyOnce(first, await groupRead(kafka, 'kj-group', 'kj-resume', 30))).toEqual(CLEAN);
    const backlog = await send('backlog', 10); // produced, not consumed, before the restart
    await producer.disconnect();

    const port = broker.port;
    await broker.stop();
    broker = await startTestBroker(url, {
      config: { ...NO_DELAY, listeners: [{ host: '127.0.0.1', port, securityProtocol: 'PLAINTEXT' }] },
    });
    await producer.connect();
    const after = await send('after', 10);
    await producer.disconnect();
    // Committed: `before` is never read again; `backlog` and `after` exactly once.
    expect(exactlyOnce([...backlog, ...after], await groupRead(newKafka(), 'kj-group', 'kj-resume', 20))).toEqual(
      CLEAN,
    );
  });

  it.concurrent(
    'confluent-kafka: an idempotent lz4 producer, then a committing group member, read every record once',
    async () => {
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'ck-idem', numPartitions: 3 }] });
      await admin.disconnect();
      const produced = lastJson(
        'ck_produce.py',
        await run(DEBIAN_PYTHON, [script('ck_produce.py'), bootstrap(), 'ck-idem', 'ck', '300', 'lz4'], {
          timeoutMs: 60_000,
        }),
      );
      expect(produced).toMatchObject({ errors: [], unflushed: 0 });
      const positions = (produced.delivered as [number, number][]).map(([p, o]) => `${p}:${o}`);
      expect(new Set(positions).size).toBe(300);
      const consumed = lastJson(
        'ck_group_consume.py',
        await run(DEBIAN_PYTHON, [script('ck_group_consume.py'), bootstrap(), 'ck-idem', 'ck-group', '300', '30'], {
          timeoutMs: 60_000,
        }),
      );
      const sent = Array.from({ length: 300 }, (_, i) => `ck ${i}`);
      expect(exactlyOnce(sent, consumed.values)).toEqual(CLEAN);
    },
  );

  it.concurrent(
    'a librdkafka transaction commits and aborts; kafkajs read_committed reads only the committed records',
    async () => {
      const produced = lastJson(
        'ck_transactions.py',
        await run(DEBIAN_PYTHON, [script('ck_transactions.py'), 'commit-abort', bootstrap(), 'txn-ca', 'pgc-txn'], {
          timeoutMs: 60_000,
        }),
      );
      expect(produced.errors).toEqual([]);
      const committed = ['committed-1', 'committed-2'].flatMap((l) =>
        [0, 1].flatMap((p) => [0, 1, 2].map((i) => `${l} ${p} ${i}`)),
      );
      expect(exactlyOnce(committed, await groupRead(kafka, 'txn-rc', 'txn-ca', committed.length))).toEqual(CLEAN);
      // read_uncommitted (Kafka's consumer default) sees the aborted ones as well.
      const aborted = [0, 1].flatMap((p) => [0, 1, 2].map((i) => `aborted ${p} ${i}`));
      const all = await groupRead(kafka, 'txn-ru', 'txn-ca', 18, { readUncommitted: true });
      expect(exactlyOnce([...committed, ...aborted], all)).toEqual(CLEAN);
    },
  );

  it.concurrent('the Java client (4.x) produces with every codec and reads it back', async () => {
    const r = await javaRun;
    const line = r.stdout.split('\n').find((l) => l.includes('"scenario":"produce"'));
    if (!line) throw new Error(`the Java driver printed no produce result (exit ${r.code}): ${r.stderr.slice(-3000)}`);
    const produce = JSON.parse(line);
    for (const [codec, res] of Object.entries<any>(produce.codecs)) {
      expect({ codec, error: res.error }).toEqual({ codec, error: undefined });
      expect({ codec, offsets: res.offsets }).toEqual({ codec, offsets: Array.from({ length: 20 }, (_, i) => i) });
      expect({ codec, read: res.records.map((x: any) => x.offset) }).toEqual({
        codec,
        read: Array.from({ length: 20 }, (_, i) => i),
      });
    }
    expect(produce.ok).toBe(true);
  });

  it('legal but unusual values: ids with a NUL character, a committed offset of 2^63-1', async () => {
    // Kafka strings may hold U+0000 (PostgreSQL TEXT may not). Few retries: a refusal shows at once.
    const quick = new Kafka({
      brokers: [bootstrap()],
      logLevel: logLevel.NOTHING,
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 300 },
    });
    const within = <T>(what: string, p: Promise<T>) =>
      Promise.race([
        p,
        new Promise<never>((_, no) => setTimeout(() => no(new Error(`${what}: no answer in 10 s`)), 10_000)),
      ]);
    const outcome = async (what: string, f: () => Promise<unknown>) => {
      try {
        return await within(what, f());
      } catch (err) {
        return `${what} failed: ${(err as Error).message}`;
      }
    };
    const setOffset = (groupId: string, offset: string) =>
      setOffsets(quick, groupId, 'nul-strings', [{ partition: 0, offset }]);
    const admin = quick.admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'nul-strings', numPartitions: 1 }] });
      const group = 'g\u0000nul';
      const set = await outcome('OffsetCommit for group g\\0nul', () => setOffset(group, '0'));
      const fetched = await outcome('OffsetFetch for group g\\0nul', () =>
        admin.fetchOffsets({ groupId: group, topics: ['nul-strings'] }),
      );
      const txn = await outcome('a transaction with transactional.id tx\\0nul', async () => {
        const p = quick.producer({ transactionalId: 'tx\u0000nul', idempotent: true, maxInFlightRequests: 1 });
        await p.connect();
        try {
          const t = await p.transaction();
          await t.send({ topic: 'nul-strings', messages: [{ value: 'in txn' }] });
          await t.commit();
        } finally {
          await p.disconnect();
        }
        return 'committed';
      });
      // Kafka keeps any int64 a client commits (Long.MAX_VALUE included) and answers it back;
      // minnow's offsets are exact to 2^53 - 1 (no log reaches it), so it refuses the commit for
      // that partition (INVALID_COMMIT_OFFSET_SIZE) and goes on answering (it once died here).
      const max = '9223372036854775807';
      const maxSet = await outcome('OffsetCommit of 2^63-1', () => setOffset('g-max', max));
      const maxFetched = await outcome('OffsetFetch of 2^63-1', () =>
        admin.fetchOffsets({ groupId: 'g-max', topics: ['nul-strings'] }),
      );
      expect({ set, fetched, txn, maxSet, maxFetched }).toEqual({
        set: undefined,
        fetched: [{ topic: 'nul-strings', partitions: [{ partition: 0, offset: '0', metadata: null }] }],
        txn: 'committed',
        // kafkajs's text for INVALID_COMMIT_OFFSET_SIZE (a timeout "no answer in 10 s" once passed here)
        maxSet: 'OffsetCommit of 2^63-1 failed: The committing offset data size is not valid',
        maxFetched: [{ topic: 'nul-strings', partitions: [{ partition: 0, offset: '-1', metadata: null }] }],
      });
    } finally {
      await admin.disconnect();
    }
  });

  it('PostgreSQL crash-restarts under a kafkajs idempotent producer: every acknowledged record is read once', async () => {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const acked: string[] = [];
    const failed: string[] = [];
    const pgCtl = [path.join(postgresBinDir()!, 'pg_ctl'), '-D', path.join(pg.dir, 'data')];
    // As root the server runs as `postgres` (see postgres-server.ts), and so must pg_ctl.
    const [cmd, ...args] = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...pgCtl] : pgCtl;
    let restart: Promise<unknown> | undefined;
    let ackedAtRestart = -1;
    // Sends go on through the crash until 40 more were acknowledged after PostgreSQL was back.
    for (let i = 0; i < 600 && (ackedAtRestart < 0 || acked.length < ackedAtRestart + 40); i++) {
      if (acked.length === 40 && !restart) {
        const ctl = ['-m', 'immediate', '-l', path.join(pg.dir, 'server.log'), '-w', '-t', '60', 'restart'];
        restart = promisify(execFile)(cmd!, [...args, ...ctl], { cwd: pg.dir }).then(
          () => (ackedAtRestart = acked.length),
          (e: Error) => e,
        );
      }
      const value = `crash-${i}`;
      try {
        await producer.send({ topic: 'pg-crash', messages: [{ value }] });
        acked.push(value);
      } catch {
        failed.push(value); // not acknowledged: may be stored at most once
      }
    }
    const outcome = await restart;
    if (outcome instanceof Error) throw outcome;
    await producer.disconnect().catch(() => {});
    const read = await kcatRead('pg-crash');
    const check = exactlyOnce(acked, read);
    // An unacknowledged send may or may not have been stored, but never twice.
    check.unexpected = check.unexpected.filter((v) => !failed.includes(v));
    const ackedSet = new Set(acked);
    const order = inOrder(
      acked,
      read.filter((v) => ackedSet.has(v)),
    ).order;
    expect({ ...check, order, ackedAfterRestart: acked.length - ackedAtRestart >= 40 }).toEqual({
      ...CLEAN,
      order: true,
      ackedAfterRestart: true,
    });
  }, 90_000);
});
