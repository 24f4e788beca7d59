// txn-crash.test.ts's proof with librdkafka (confluent-kafka from PyPI, python/ck_txn_loop.py): an
// exactly-once consume-transform-produce service (read_committed, OffsetFetch require_stable,
// send_offsets_to_transaction with the group's metadata) copies topic A to B while the broker, a
// child process on SQLite, is SIGKILLed at seeded random points and restarted on the same file and
// port. B read with read_committed must hold every value of A exactly once. After a restart the
// group's members are gone (membership lives in memory), so the first TxnOffsetCommit with the old
// generation is refused (ILLEGAL_GENERATION, KIP-447) and the loop aborts and rewinds, as with Kafka.
// The loop sets metadata.recovery.strategy=none: see ck_txn_loop.py for the librdkafka bug it avoids.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { ChildBroker } from '../../tools/resilience/child-broker';
import { describeWithTools } from '../support/external-tools';
import { run, tempDir } from '../integration/helpers';
import { venvPython } from '../integration/python-venv';
import { freePort } from '../../tools/kafka-oracle/kafka';
import { prng } from '../../src/perf/payload';

const PY = path.join(__dirname, '..', 'integration', 'python');
const KILLS = Number(process.env.MINNOW_TXN_CRASH_KILLS ?? 4);
const RECORDS = Number(process.env.MINNOW_TXN_CRASH_RECORDS ?? Math.max(2000, KILLS * 250));
const CHUNK = 25;
/** The loop's own deadline: a stalled run ends with its story instead of a jest timeout. */
const LOOP_DEADLINE_S = 60 + KILLS * 5;
const SEED = Number(process.env.MINNOW_TXN_CRASH_SEED ?? Date.now() % 2 ** 31);
const ENV = { LOG_LEVEL: 'info', GROUP_INITIAL_REBALANCE_DELAY_MS: '0' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeWithTools('python3-venv')('librdkafka transactions through kill -9', () => {
  const tmp = tempDir('minnow-txn-crash-rdk-');
  afterAll(() => tmp.cleanup());

  it(
    `a confluent-kafka consume-transform-produce loop writes every record exactly once across ${KILLS} kills (seed ${SEED})`,
    async () => {
      const python = await venvPython(path.join(PY, 'requirements-pypi.txt'));
      const rand = prng(SEED);
      const port = await freePort();
      const storageUrl = `sqlite://${path.join(tmp.dir, 'txn-crash-rdk.db')}`;
      const bootstrap = `127.0.0.1:${port}`;
      let broker = await ChildBroker.start({ storageUrl, port, env: ENV });
      const brokers = [broker];
      const log: string[] = [];
      try {
        // A: distinct values over 2 partitions (kafkajs, not transactional).
        const kafka = new Kafka({ clientId: 'txn-crash-rdk-fill', brokers: [bootstrap], logLevel: logLevel.NOTHING });
        const admin = kafka.admin();
        await admin.connect();
        await admin.createTopics({
          topics: [
            { topic: 'rdk-a', numPartitions: 2 },
            { topic: 'rdk-b', numPartitions: 2 },
          ],
        });
        await admin.disconnect();
        const fill = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
        await fill.connect();
        const values = Array.from({ length: RECORDS }, (_, i) => `v${i}`);
        const end = [0, 0];
        for (let i = 0; i < RECORDS; i += 200) {
          const partition = (i / 200) % 2;
          await fill.send({
            topic: 'rdk-a',
            acks: -1,
            messages: values.slice(i, i + 200).map((value) => ({ value, partition })),
          });
          end[partition]! += Math.min(200, RECORDS - i);
        }
        await fill.disconnect();

        const child = spawn(
          python,
          [
            path.join(PY, 'ck_txn_loop.py'),
            bootstrap,
            'rdk-a',
            'rdk-b',
            'rdk-group',
            'rdk-txn',
            end.join(','),
            String(CHUNK),
            String(LOOP_DEADLINE_S),
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let committed = 0;
        let lastLine = '';
        let stderr = '';
        let partial = '';
        child.stdout.on('data', (d) => {
          const lines = (partial + d).split('\n');
          partial = lines.pop()!;
          for (const line of lines) {
            lastLine = line;
            const m = /^\{"committed": (\d+)/.exec(line);
            if (m) committed = Number(m[1]);
          }
        });
        child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
        const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
        let running = true;
        void exited.then(() => (running = false));
        const killTimer = setTimeout(() => child.kill('SIGKILL'), (LOOP_DEADLINE_S + 30) * 1000);

        // Kills: each when the loop has committed past the next threshold and again since the last
        // restart, 0-60 ms later (inside a transaction, most likely).
        let kills = 0;
        let sinceRestart = 0;
        for (let k = 1; k <= KILLS && running; k++) {
          const threshold = Math.max(
            Math.floor((RECORDS * k) / (KILLS + 2) + (rand() - 0.5) * CHUNK * 2),
            sinceRestart + CHUNK,
          );
          while (running && committed < threshold) await sleep(5);
          await sleep(Math.floor(rand() * 60));
          if (!running || committed >= RECORDS) break;
          await broker.kill9();
          kills++;
          log.push(`kill ${k} at ${committed} committed`);
          broker = await ChildBroker.start({ storageUrl, port, env: ENV });
          brokers.push(broker);
          sinceRestart = committed;
        }
        const code = await exited;
        clearTimeout(killTimer);
        if (code !== 0) throw new Error(`ck_txn_loop.py exited ${code}: ${stderr}`);
        const summary = JSON.parse(lastLine);

        const read = async (isolation: string): Promise<string[]> => {
          const r = await run(
            python,
            [path.join(PY, 'ck_transactions.py'), 'read', bootstrap, 'rdk-b', isolation, '60'],
            {
              timeoutMs: 90_000,
            },
          );
          if (r.code !== 0) throw new Error(`reading rdk-b (${isolation}) exited ${r.code}: ${r.stderr.slice(-2000)}`);
          return JSON.parse(r.stdout.trim().split('\n').pop()!).records.map((x: [number, number, string]) => x[2]);
        };
        const got = await read('read_committed');
        const uncommitted = await read('read_uncommitted');
        const counts = new Map<string, number>();
        for (const v of got) counts.set(v, (counts.get(v) ?? 0) + 1);
        const missing = values.filter((v) => !counts.has(v));
        const story = `seed ${SEED}; ${log.join(', ')}; loop: ${JSON.stringify(summary)}; B: ${got.length} read_committed, ${uncommitted.length} read_uncommitted`;
        expect({
          done: summary.done,
          kills,
          missing: `${missing.length} missing${missing.length ? `: ${missing.slice(0, 20).join(', ')}` : ''}`,
          duplicated: Object.fromEntries([...counts].filter(([, c]) => c > 1)),
          brokerErrors: brokers.flatMap((b) =>
            b.lines.filter((l) => l.level === 'error').map((l) => JSON.stringify(l)),
          ),
          story,
        }).toEqual({ done: true, kills: KILLS, missing: '0 missing', duplicated: {}, brokerErrors: [], story });
        if (process.env.MINNOW_TEST_LOG) console.log(story);
      } finally {
        await broker.stop();
      }
    },
    (LOOP_DEADLINE_S + 120) * 1000,
  );
});
