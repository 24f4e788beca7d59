// A full disk (storage/disk-space.ts): produce is refused below the free-space floor with a clear,
// non-retriable POLICY_VIOLATION; every write that finds the disk full is answered with an error
// code (never a closed connection); DeleteRecords frees space and produce resumes; the broker
// starts and serves reads on a full disk, and exits 0 on SIGTERM.
//
// The full disk is a small tmpfs the test mounts (root on Linux). Where mounting is not allowed,
// the tests that need it are skipped and say so; the floor test runs anywhere (a floor above the
// free space of any disk).
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { createLogger } from '../../src/logger';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import { describeWithTools, itWithTools } from '../support/external-tools';
import { kcat, run, startTestBroker, tempDir, engineOf } from './helpers';
import { ChildBroker, MINNOW, startChildBroker } from './serve-child';

const MiB = 1024 * 1024;

/** Mounts a tmpfs of `sizeMiB` on a new folder; undefined where that is not allowed. */
async function mountTmpfs(sizeMiB: number): Promise<{ dir: string; unmount: () => Promise<void> } | undefined> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const t = tempDir('minnow-full-');
  const r = await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', t.dir], { timeoutMs: 10_000 }).catch(
    () => undefined,
  );
  if (!r || r.code !== 0) {
    t.cleanup();
    return undefined;
  }
  return {
    dir: t.dir,
    unmount: async () => {
      await run('umount', [t.dir], { timeoutMs: 10_000 });
      t.cleanup();
    },
  };
}

/** Writes a file until the file system refuses (ENOSPC): the disk is then full to the last page. */
function fillDisk(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'w');
  try {
    for (const size of [MiB, 64 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      for (let i = 0; i < 100_000; i++) {
        try {
          fs.writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          break;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  expect(fs.statfsSync(dir).bavail).toBe(0);
  return file;
}

const batch = (bytes: number) => encodeRecordBatch({ records: [{ value: randomBytes(bytes) }] });

describe('a free-space floor (any file system)', () => {
  const tmp = tempDir();
  let broker: RunningBroker;
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it('refuses produce below MINNOW_MIN_FREE_BYTES with POLICY_VIOLATION and "disk full: ..." (kafkajs fails at once, not after its retries)', async () => {
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'floor.db')}`, { config: { minFreeBytes: 2 ** 40 } });
    engineOf(broker).createTopic('floor', 1, {});
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    const res = await conn.send(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: 'floor', partitionData: [{ index: 0, records: batch(100) }] }],
    });
    conn.close();
    const p = res.responses[0].partitionResponses[0];
    expect(p.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
    expect(p.errorMessage).toMatch(
      new RegExp(`^disk full: \\d+ bytes free on ${tmp.dir}, floor 1099511627776 \\(MINNOW_MIN_FREE_BYTES\\)`),
    );
    expect(engineOf(broker).offsets('floor', 0)!.highWatermark).toBe(0);

    const kafka = new Kafka({
      brokers: [`127.0.0.1:${broker.port}`],
      clientId: 'floor',
      logLevel: logLevel.NOTHING,
      retry: { retries: 5, initialRetryTime: 1000 },
    });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      // Five retries at 1 s+ each would take over 30 s: the jest timeout below fails a retried error.
      await expect(producer.send({ topic: 'floor', messages: [{ value: 'x' }] })).rejects.toMatchObject({
        type: 'POLICY_VIOLATION',
        retriable: false,
      });
    } finally {
      await producer.disconnect();
    }
  }, 20_000);
});

describe('SQLITE_FULL simulated with max_page_count (any file system: runs where no tmpfs can be mounted too)', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('answers a produce commit that finds the database full with POLICY_VIOLATION; DeleteRecords answers and frees; produce resumes', async () => {
    const broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'capped.db')}`);
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    const produce = (records: Buffer) =>
      conn.send(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: 'capped', partitionData: [{ index: 0, records }] }],
      });
    try {
      engineOf(broker).createTopic('capped', 1, {});
      for (let i = 0; i < 8; i++)
        expect((await produce(batch(64 * 1024))).responses[0].partitionResponses[0].errorCode).toBe(0);
      const db = (engineOf(broker) as SqliteStorage).database;
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`); // no page more
      const refused = (await produce(batch(64 * 1024))).responses[0].partitionResponses[0];
      expect(refused.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
      expect(refused.errorMessage).toMatch(/^disk full: /);
      const del = await conn.send(ApiKey.DeleteRecords, 2, {
        topics: [{ name: 'capped', partitions: [{ partitionIndex: 0, offset: -1n }] }],
        timeoutMs: 5000,
      });
      expect(del.topics[0].partitions[0]).toMatchObject({ errorCode: 0, lowWatermark: 8n });
      expect((await produce(batch(64 * 1024))).responses[0].partitionResponses[0].errorCode).toBe(0);
    } finally {
      conn.close();
      await broker.stop();
    }
  }, 30_000);
});

describeWithTools('tmpfs mount')('a full disk (tmpfs)', () => {
  let fsMount: NonNullable<Awaited<ReturnType<typeof mountTmpfs>>>;
  beforeAll(async () => {
    const mounted = await mountTmpfs(32);
    if (!mounted) throw new Error('mount -t tmpfs failed, though the probe in external-tools.ts could mount one');
    fsMount = mounted;
  });
  /** Brokers a failed test may leave running (they would keep the mount busy). */
  const children: ChildBroker[] = [];
  afterAll(async () => {
    for (const c of children) await c.stop('SIGKILL'); // returns at once for one already stopped
    await fsMount?.unmount();
  });

  it('answers every write with an error code while full (tmpfs): produce refused, InitProducerId answered, DeleteRecords frees and produce resumes', async () => {
    const dir = path.join(fsMount.dir, 'running');
    fs.mkdirSync(dir);
    const logLines: string[] = [];
    const logger = createLogger('warn', (line) => logLines.push(line));
    const broker = await startTestBroker(`sqlite://${path.join(dir, 'minnow.db')}`, {
      config: { minFreeBytes: 4 * MiB },
      logger,
    });
    const conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    let filler: string | undefined;
    const produce = (records: Buffer) =>
      conn.send(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: 'full', partitionData: [{ index: 0, records }] }],
      });
    try {
      expect(fs.existsSync(path.join(dir, 'minnow.db.reserve'))).toBe(true);
      engineOf(broker).createTopic('full', 1, {});
      for (let i = 0; i < 96; i++)
        expect((await produce(batch(64 * 1024))).responses[0].partitionResponses[0].errorCode).toBe(0);
      // An empty WAL: the next commit must grow it, and finds no room. The broker's checkpointer
      // thread may hold the checkpoint at this moment (the pragma then answers busy and truncates
      // nothing, and a later commit reuses the WAL file's room: InitProducerId below once succeeded
      // that way under load), so wait until a truncation has happened (bounded).
      const db = (engineOf(broker) as SqliteStorage).database;
      for (let tries = 0; ; tries++) {
        const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number }[];
        if (r!.busy === 0 && fs.statSync(path.join(dir, 'minnow.db-wal')).size === 0) break;
        if (tries >= 100)
          throw new Error(`the WAL was not truncated after ${tries} tries (last: ${JSON.stringify(r)})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      filler = fillDisk(fsMount.dir);
      broker.context.diskSpace?.refresh(); // no waiting out its 1 s cache

      for (let i = 0; i < 5; i++)
        expect((await produce(batch(100))).responses[0].partitionResponses[0].errorCode).toBe(
          ErrorCode.POLICY_VIOLATION,
        );
      const refused = (await produce(batch(100))).responses[0].partitionResponses[0];
      expect(refused.errorCode).toBe(ErrorCode.POLICY_VIOLATION);
      expect(refused.errorMessage).toMatch(
        new RegExp(`^disk full: \\d+ bytes free on ${dir}, floor 4194304 \\(MINNOW_MIN_FREE_BYTES\\)`),
      );

      const init = await conn.send(ApiKey.InitProducerId, 4, {
        transactionalId: null,
        transactionTimeoutMs: 60_000,
        producerId: -1n,
        producerEpoch: -1,
      });
      expect(init.errorCode).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);

      const hw = engineOf(broker).offsets('full', 0)!.highWatermark;
      const del = await conn.send(ApiKey.DeleteRecords, 2, {
        topics: [{ name: 'full', partitions: [{ partitionIndex: 0, offset: -1n }] }],
        timeoutMs: 5000,
      });
      expect(del.topics[0].partitions[0]).toMatchObject({ errorCode: 0, lowWatermark: BigInt(hw) });
      // The freed pages are room again: produce is accepted (the file system itself is still full).
      expect((await produce(batch(100))).responses[0].partitionResponses[0].errorCode).toBe(0);
      // One "disk full" line for all of it, not one per request.
      const full = logLines.filter((l) => /"msg":"disk full: \d+ bytes free on /.test(l));
      expect(full).toHaveLength(1);
    } finally {
      conn.close();
      await broker.stop();
      if (filler) fs.rmSync(filler);
    }
  }, 60_000);

  itWithTools('kcat')(
    'starts on a full disk (tmpfs), serves reads, refuses produce in kcat with the policy error, and exits 0 on SIGTERM',
    async () => {
      const dir = path.join(fsMount.dir, 'restart');
      fs.mkdirSync(dir);
      const db = path.join(dir, 'minnow.db');
      const env = { MINNOW_MIN_FREE_BYTES: String(2 * MiB) };
      const first = await startChildBroker(['--storage', `sqlite://${db}`], env);
      children.push(first);
      const lines = Array.from({ length: 100 }, (_, i) => `line-${i}`);
      const produced = await run('kcat', ['-b', `127.0.0.1:${first.port}`, '-P', '-t', 'kept'], {
        input: lines.join('\n') + '\n',
      });
      expect(produced.code).toBe(0);
      expect(await first.stop('SIGTERM')).toBe(0);

      const filler = fillDisk(fsMount.dir);
      const second = await startChildBroker(['--storage', `sqlite://${db}`], env);
      children.push(second);
      try {
        const fake = { port: second.port } as RunningBroker;
        const read = await kcat(fake, ['-C', '-t', 'kept', '-o', 'beginning', '-e', '-q']);
        expect(read.stdout.trim().split('\n')).toEqual(lines);
        const refused = await kcat(fake, ['-P', '-t', 'kept'], { input: 'more\n' });
        expect(refused.stderr).toMatch(/Policy violation/i);
        expect(second.stderr()).toMatch(new RegExp(`disk full: \\d+ bytes free on ${dir}`));
      } finally {
        expect(await second.stop('SIGTERM')).toBe(0);
      }
      fs.rmSync(filler);
    },
    90_000,
  );

  it('without a reserve file (MINNOW_MIN_FREE_BYTES=0), says plainly that the disk is full instead of SQLITE_IOERR_SHMSIZE (tmpfs)', async () => {
    const dir = path.join(fsMount.dir, 'no-reserve');
    fs.mkdirSync(dir);
    const db = path.join(dir, 'minnow.db');
    const env = { MINNOW_MIN_FREE_BYTES: '0' };
    const first = await startChildBroker(['--storage', `sqlite://${db}`], env);
    children.push(first);
    expect(await first.stop('SIGTERM')).toBe(0); // a clean stop: no -wal, no -shm left
    expect(fs.existsSync(`${db}.reserve`)).toBe(false);
    const filler = fillDisk(fsMount.dir);
    try {
      const r = await run('node', [MINNOW, 'serve', '--listener', 'tcp://127.0.0.1:0', '--storage', `sqlite://${db}`], {
        env: { ...process.env, ...env },
        timeoutMs: 20_000,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`disk full: \\d+ bytes free on ${dir}; the broker cannot open ${db} .*free some space`),
      );
    } finally {
      fs.rmSync(filler);
    }
  }, 60_000);
});
