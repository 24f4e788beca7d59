// Compaction (issue 17, docs/compaction.md) with real clients on both engines: kafka-python and
// kcat produce keyed updates (gzip, zstd) and tombstones to a compacted topic; once the cleaner
// ran, kafka-python, kcat, kafkajs and confluent-kafka (librdkafka 2.0.2) reading from the
// beginning see exactly the latest record per key at its original offset (offset gaps and empty
// batches must not stall them), tombstones while delete.retention.ms lasts and not after, and
// ListOffsets still answers. A record without a key is refused with INVALID_RECORD
// (LogValidator.validateKey).
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaClient } from '../../src/client/client';
import { KafkaClientError } from '../../src/client/errors';
import { ErrorCode } from '../../src/protocol/error-codes';
import { decodeRecords, encodeRecordBatch, readBatchHeader } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { loadKafkajsModules, loadLazyBrokerModules } from '../support/lazy-broker-modules';
import { Engine, kcat, run, startTestBroker, storageUrlFor, tempDir, lastJson, engineOf } from './helpers';
import { venvPython } from './python-venv';

const PYTHON = '/usr/bin/python3';
const script = (name: string) => path.join(__dirname, 'python', name);
/** confluent-kafka from PyPI (librdkafka 2.16) beside Debian's 1.7.0 (librdkafka 2.0.2). */
const PYPI_REQUIREMENTS = path.join(__dirname, 'python', 'requirements-pypi.txt');
/**
 * The compactor looks this often (LOG_CLEANER_BACKOFF_MS; Kafka's log.cleaner.backoff.ms is 15 s),
 * and groups form at once (each reader is its group's only member: it waited the 3 s default).
 */
const CLEANER: object = { logCleanerBackoffMs: 100, groupInitialRebalanceDelayMs: 0 };
const CODECS = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;
const HOUR = '3600000';

/** [offset, key, value or null for a tombstone] */
type Rec = [number, string | null, string | null];

/** The latest record of each key, in offset order: what a compacted log holds below its head. */
function latestPerKey(records: readonly Rec[]): Rec[] {
  const last = new Map<string | null, Rec>();
  for (const r of records) last.set(r[1], r);
  return [...last.values()].sort((a, b) => a[0] - b[0]);
}

describeWithTools('kcat', 'python3-kafka', 'python3-zstandard', 'python3-venv').each<Engine>(['memory', 'sqlite'])(
  'compaction with real clients on %s storage',
  (engine) => {
    let broker: RunningBroker;
    let client: KafkaClient;
    let bootstrap: string;
    const tmp = tempDir();

    beforeAll(async () => {
      loadLazyBrokerModules();
      loadKafkajsModules();
      broker = await startTestBroker(storageUrlFor(engine, tmp.dir), { config: { ...CLEANER } });
      bootstrap = `127.0.0.1:${broker.port}`;
      client = new KafkaClient(bootstrap);
    });
    afterAll(async () => {
      client.close();
      await broker.stop();
      tmp.cleanup();
    });

    // The tests run at once (it.concurrent, first the longest: the tombstone waits out its
    // delete.retention.ms): each has its own topic and readers, and their time is spent waiting on
    // the cleaner and on client processes, not computing. The broker's lazily loaded modules are
    // loaded first (support/lazy-broker-modules.ts says why).
    const createCompacted = async (topic: string, extra: Record<string, string> = {}) => {
      await client.createTopic(topic, 1, {
        'cleanup.policy': 'compact',
        'min.compaction.lag.ms': '0',
        'min.cleanable.dirty.ratio': '0.01',
        'delete.retention.ms': HOUR,
        ...extra,
      });
      await client.topic(topic); // learns the leader's address
    };

    /** What partition 0 stores now, record by record, and each batch's codec. */
    function stored(topic: string): { records: Rec[]; codecs: number[] } {
      const records: Rec[] = [];
      const codecs: number[] = [];
      for (const b of engineOf(broker).read(topic, 0, 0, 1 << 30).batches) {
        const base = Number(readBatchHeader(b).baseOffset);
        codecs.push(b.readInt16BE(21) & 7);
        for (const r of decodeRecords(b)) {
          records.push([
            base + r.offsetDelta,
            r.key === null ? null : r.key.toString(),
            r.value === null ? null : r.value.toString(),
          ]);
        }
      }
      return { records, codecs };
    }

    /**
     * One record with a key of its own, so every earlier batch is below the head (the batch holding
     * HW-1 is never cleaned). Returns its offset.
     */
    async function sentinel(topic: string, value = 'end'): Promise<number> {
      const batch = encodeRecordBatch({ records: [{ key: Buffer.from('sentinel'), value: Buffer.from(value) }] });
      return Number(await client.produce(topic, 0, 1, batch, -1));
    }

    /** Polls the stored log until it is `want` (the cleaner ran), at most 30 s. */
    async function untilStored(topic: string, want: Rec[], nudge?: () => Promise<void>): Promise<void> {
      let seen: Rec[] = [];
      for (let i = 0; i < 150; i++) {
        seen = stored(topic).records;
        if (JSON.stringify(seen) === JSON.stringify(want)) return;
        if (nudge) await nudge();
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(seen).toEqual(want); // fails, showing the difference
    }

    async function readKafkaPython(topic: string, end: number): Promise<Rec[]> {
      const out = lastJson(
        'kafka-python consume',
        await run(PYTHON, [script('compaction_kafka_python.py'), 'consume', bootstrap, topic, String(end)], {
          timeoutMs: 60_000,
        }),
      );
      expect(out.position).toBe(end);
      return out.records;
    }

    async function readConfluent(topic: string, end: number, python = PYTHON): Promise<Rec[]> {
      const out = lastJson(
        'confluent-kafka consume',
        await run(python, [script('compaction_confluent.py'), 'consume', bootstrap, topic, String(end)], {
          timeoutMs: 60_000,
        }),
      );
      expect(out.position).toBe(end);
      return out.records;
    }

    async function readKcat(topic: string): Promise<Rec[]> {
      // -X fetch.max.bytes small: many fetches, some answered by emptied batches only.
      const r = await kcat(
        { port: broker.port } as RunningBroker,
        [
          '-C',
          '-t',
          topic,
          '-p',
          '0',
          '-o',
          'beginning',
          '-e',
          '-J',
          '-X',
          'fetch.max.bytes=4096',
          '-X',
          'message.max.bytes=4096',
        ],
        { timeoutMs: 30_000 },
      );
      expect(r.code).toBe(0);
      return r.stdout
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
        .map((m: { offset: number; key: string | null; payload: string | null }) => [m.offset, m.key, m.payload]);
    }

    async function readKafkajs(topic: string, end: number): Promise<Rec[]> {
      const kafka = new Kafka({ clientId: 'compaction', brokers: [bootstrap], logLevel: logLevel.NOTHING });
      const consumer = kafka.consumer({ groupId: `kafkajs-${topic}`, maxBytes: 4096, maxBytesPerPartition: 4096 });
      await consumer.connect();
      const records: Rec[] = [];
      try {
        await consumer.subscribe({ topic, fromBeginning: true });
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`kafkajs read ${records.length} records, not to ${end}`)),
            30_000,
          );
          void consumer.run({
            eachMessage: async ({ message }) => {
              const offset = Number(message.offset);
              records.push([offset, message.key?.toString() ?? null, message.value?.toString() ?? null]);
              if (offset + 1 < end) return;
              clearTimeout(timer);
              resolve();
            },
          });
        });
      } finally {
        await consumer.disconnect();
      }
      return records;
    }

    it.concurrent('a tombstone is read within delete.retention.ms and removed after it', async () => {
      const topic = 'tombstones';
      await createCompacted(topic, { 'delete.retention.ms': '8000' });
      const lines = ['a:1', 'b:1', 'c:1', 'a:2', 'b:', 'c:3'];
      const r = await kcat({ port: broker.port } as RunningBroker, ['-P', '-t', topic, '-p', '0', '-K', ':', '-Z'], {
        input: lines.join('\n') + '\n',
      });
      expect(r.code).toBe(0);
      const end = (await sentinel(topic)) + 1;
      // First pass: b's tombstone stays (its delete horizon is set now + 8 s).
      await untilStored(topic, [
        [3, 'a', '2'],
        [4, 'b', null],
        [5, 'c', '3'],
        [end - 1, 'sentinel', 'end'],
      ]);
      expect((await readKcat(topic)).filter((x) => x[1] === 'b')).toEqual([[4, 'b', null]]);
      // Later passes (new updates of the sentinel keep the log dirty) drop it once the horizon passed.
      for (let i = 0; i < 150 && stored(topic).records.some((x) => x[1] === 'b'); i++) {
        await sentinel(topic, `more ${i}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const left = stored(topic).records;
      expect(left.filter((x) => x[1] !== 'sentinel')).toEqual([
        [3, 'a', '2'],
        [5, 'c', '3'],
      ]);
      const latest = Number(await client.listOffset(topic, 0, 1, -1n));
      expect((await readKcat(topic)).filter((x) => x[1] !== 'sentinel')).toEqual([
        [3, 'a', '2'],
        [5, 'c', '3'],
      ]);
      expect(await client.listOffset(topic, 0, 1, -2n)).toBe(0n);
      expect(latest).toBeGreaterThan(end - 1);
    });

    it.concurrent(
      'kafka-python (gzip) keyed updates: every client reads the latest value per key at its offset',
      async () => {
        const topic = 'kp-gzip';
        await createCompacted(topic);
        const [keys, rounds, tombstones] = [40, 10, 5];
        const p = lastJson(
          'kafka-python produce',
          await run(
            PYTHON,
            [
              script('compaction_kafka_python.py'),
              'produce',
              bootstrap,
              topic,
              'gzip',
              String(keys),
              String(rounds),
              String(tombstones),
            ],
            { timeoutMs: 60_000 },
          ),
        );
        const produced: Rec[] = [];
        for (let n = 0; n < keys * rounds; n++) produced.push([n, `k${n % keys}`, `k${n % keys}:${n}`]);
        for (let k = 0; k < tombstones; k++) produced.push([keys * rounds + k, `k${k}`, null]);
        expect(p.sent).toBe(produced.length);
        const end = (await sentinel(topic)) + 1;
        const want = latestPerKey([...produced, [end - 1, 'sentinel', 'end']]);
        // The delete horizon (an hour) has not passed: the tombstones are still there.
        expect(want.filter((r) => r[2] === null)).toHaveLength(tombstones);
        await untilStored(topic, want);
        // Rewritten batches keep the producer's codec (the sentinel is uncompressed).
        expect(new Set(stored(topic).codecs)).toEqual(new Set([CODECS.gzip, CODECS.none]));

        expect(await readKafkaPython(topic, end)).toEqual(want);
        expect(await readKcat(topic)).toEqual(want);
        expect(await readKafkajs(topic, end)).toEqual(want);
        expect(await readConfluent(topic, end)).toEqual(want);
        // The log start did not move (compaction is not retention), the end is the producer's.
        expect(await client.listOffset(topic, 0, 1, -2n)).toBe(0n);
        expect(await client.listOffset(topic, 0, 1, -1n)).toBe(BigInt(end));
        const q = await kcat({ port: broker.port } as RunningBroker, ['-Q', '-t', `${topic}:0:${Date.now() + HOUR}`]);
        expect(q.stdout).toMatch(new RegExp(`${topic} \\[0\\]\\s+offset -1`));
      },
    );

    it.concurrent('kafka-python (zstd) keyed updates are compacted in zstd', async () => {
      const topic = 'kp-zstd';
      await createCompacted(topic);
      const p = lastJson(
        'kafka-python produce',
        await run(PYTHON, [script('compaction_kafka_python.py'), 'produce', bootstrap, topic, 'zstd', '25', '8', '0'], {
          timeoutMs: 60_000,
        }),
      );
      const produced: Rec[] = Array.from({ length: p.sent }, (_, n) => [n, `k${n % 25}`, `k${n % 25}:${n}`]);
      const end = (await sentinel(topic)) + 1;
      const want = latestPerKey([...produced, [end - 1, 'sentinel', 'end']]);
      await untilStored(topic, want);
      expect(new Set(stored(topic).codecs)).toEqual(new Set([CODECS.zstd, CODECS.none]));
      expect(await readKafkaPython(topic, end)).toEqual(want);
      expect(await readKcat(topic)).toEqual(want);
    });

    it.concurrent.each(['zstd', 'gzip'] as const)('kcat (%s) keyed updates and tombstones', async (codec) => {
      const topic = `kcat-${codec}`;
      await createCompacted(topic);
      const produced: Rec[] = [];
      const lines: string[] = [];
      for (let n = 0; n < 300; n++) {
        // Every 7th update of a key deletes it (-Z: an empty value is sent as null).
        const key = `k${n % 30}`;
        const value = n % 7 === 3 ? null : `${key}:${n}`;
        produced.push([n, key, value]);
        lines.push(`${key}:${value ?? ''}`);
      }
      const r = await kcat(
        { port: broker.port } as RunningBroker,
        ['-P', '-t', topic, '-p', '0', '-K', ':', '-Z', '-z', codec, '-X', 'linger.ms=5'],
        {
          input: lines.join('\n') + '\n',
          timeoutMs: 30_000,
        },
      );
      expect(r.code).toBe(0);
      const end = (await sentinel(topic)) + 1;
      const want = latestPerKey([...produced, [end - 1, 'sentinel', 'end']]);
      await untilStored(topic, want);
      expect(stored(topic).codecs).toContain(CODECS[codec]);
      expect(await readKcat(topic)).toEqual(want);
      // kafkajs has no zstd codec without a plugin.
      if (codec === 'gzip') expect(await readKafkajs(topic, end)).toEqual(want);
      expect(await readConfluent(topic, end)).toEqual(want);
    });

    it.concurrent('confluent-kafka idempotent (zstd) updates: compacted, and the producer goes on after', async () => {
      const topic = 'ck-idempotent';
      await createCompacted(topic);
      const produce = async () =>
        lastJson(
          'confluent-kafka produce',
          await run(PYTHON, [script('compaction_confluent.py'), 'produce', bootstrap, topic, '20', '10'], {
            timeoutMs: 60_000,
          }),
        );
      const first = await produce();
      expect(first.errors).toEqual([]);
      let end = (await sentinel(topic)) + 1;
      const produced: Rec[] = Array.from({ length: 200 }, (_, n) => [n, `k${n % 20}`, `c${n % 20}:${n}`]);
      await untilStored(topic, latestPerKey([...produced, [end - 1, 'sentinel', 'end']]));
      // A second idempotent producer after the rewrite: sequences and epochs still accepted.
      const second = await produce();
      expect(second.errors).toEqual([]);
      const again: Rec[] = Array.from({ length: 200 }, (_, n) => [end + n, `k${n % 20}`, `c${n % 20}:${n}`]);
      end = (await sentinel(topic, 'end2')) + 1;
      // The head batch (the second sentinel) is never cleaned, nor counted: the first sentinel stays.
      const want = [
        ...latestPerKey([...produced, [200, 'sentinel', 'end'], ...again]),
        [end - 1, 'sentinel', 'end2'],
      ] as Rec[];
      await untilStored(topic, want);
      // The first producer's last batch lost all its records and stays, empty, for its sequences:
      // the readers step over it.
      const batches = (await broker.context.storage.read(topic, 0, 0, 1 << 30)).batches;
      expect(batches.filter((b) => b.readInt32BE(57) === 0).length).toBeGreaterThan(0);
      expect(await readConfluent(topic, end)).toEqual(want);
      expect(await readConfluent(topic, end, await venvPython(PYPI_REQUIREMENTS))).toEqual(want);
      expect(await readKafkaPython(topic, end)).toEqual(want);
      expect(await readKcat(topic)).toEqual(want);
    });

    it.concurrent('a record without a key is refused with INVALID_RECORD', async () => {
      const topic = 'keyless';
      await createCompacted(topic);
      const batch = encodeRecordBatch({
        records: [
          { key: Buffer.from('k'), value: Buffer.from('v') },
          { key: null, value: Buffer.from('no key') },
        ],
      });
      const err = await client.produce(topic, 0, 1, batch, -1).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KafkaClientError);
      expect((err as KafkaClientError).errorCode).toBe(ErrorCode.INVALID_RECORD);
      expect((err as Error).message).toMatch(/Compacted topic cannot accept message without key/);
      // kafka-python 2.0.2 does not know code 87 by name; the send fails all the same.
      const kp = lastJson(
        'kafka-python keyless',
        await run(PYTHON, [script('compaction_kafka_python.py'), 'keyless', bootstrap, topic], { timeoutMs: 60_000 }),
      );
      expect(kp.error).not.toBeNull();
      // Nothing of the refused batch was appended.
      expect(await client.listOffset(topic, 0, 1, -1n)).toBe(0n);
      // A delete-policy topic still takes keyless records.
      await client.createTopic('keyless-delete', 1, {});
      await client.topic('keyless-delete');
      await expect(client.produce('keyless-delete', 0, 1, batch, -1)).resolves.toBe(0n);
    });
  },
);
