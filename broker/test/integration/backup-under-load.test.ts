// `minnow backup` finishes while a producer keeps writing, and the copy is a snapshot a broker
// serves: every record acknowledged before the backup started is in it. SQLite's online backup
// API, used before, started over on every write from the broker and never finished under load.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { backupCommand } from '../../src/cli/backup';
import type { RunningBroker } from '../../src/server/broker';
import { ChildBroker, MINNOW, startChildBroker } from './serve-child';
import { describeWithTools } from '../support/external-tools';
import { kcat, run, startTestBroker, tempDir } from './helpers';

describeWithTools('kcat')('minnow backup under produce', () => {
  const tmp = tempDir();
  let source: ChildBroker | undefined;
  let copy: RunningBroker | undefined;
  afterAll(async () => {
    await source?.stop();
    await copy?.stop();
    tmp.cleanup();
  });

  it('finishes while a producer writes throughout, and the copy holds every record acknowledged before it', async () => {
    const db = path.join(tmp.dir, 'live.db');
    source = await startChildBroker(['--storage', `sqlite://${db}`]);
    // Acknowledged before the backup: 2,000 lines to compare one by one, and 96 MB of bulk so the
    // database has ~12,000 pages of 8 KiB: a page-by-page copy needs many steps, and a write
    // between two steps starts it over (a small database is copied before the next commit).
    const lines = Array.from({ length: 2000 }, (_, i) => `before-${i}`);
    const pre = await run('kcat', ['-b', `127.0.0.1:${source.port}`, '-P', '-t', 'before'], {
      input: lines.join('\n') + '\n',
      timeoutMs: 30_000,
    });
    expect(pre.code).toBe(0);
    const bulk = await run(
      'node',
      [
        MINNOW,
        'perf',
        'produce',
        '--bootstrap-server',
        `127.0.0.1:${source.port}`,
        '--topic',
        'bulk',
        '--num-records',
        '12000',
        '--record-size',
        '8000',
        '--throughput',
        '-1',
        '--report-interval',
        '5s',
      ],
      { timeoutMs: 60_000 },
    );
    expect(bulk.stderr + bulk.stdout).toMatch(/12000 records sent/);
    expect(bulk.code).toBe(0);

    // A steady producer for at most 15 s: 500 records/s, each produce a commit in the broker.
    let producing = true;
    const producer = run(
      'node',
      [
        MINNOW,
        'perf',
        'produce',
        '--bootstrap-server',
        `127.0.0.1:${source.port}`,
        '--topic',
        'during',
        '--duration',
        '15s',
        '--record-size',
        '100',
        '--throughput',
        '500',
        '--linger-ms',
        '0',
        '--report-interval',
        '5s',
      ],
      { timeoutMs: 40_000 },
    ).finally(() => (producing = false));
    // The producer is writing once its topic has records (it starts in a few seconds).
    for (let i = 0; i < 50 && producing && !(await hasRecords(source.port, 'during')); i++)
      await new Promise((r) => setTimeout(r, 200));
    expect(await hasRecords(source.port, 'during')).toBe(true);

    const dest = path.join(tmp.dir, 'copy', 'backup.db');
    const logs: string[] = [];
    expect(await backupCommand(['--storage', `sqlite://${db}`, dest], (l) => logs.push(l))).toBe(0);
    const finishedWhileProducing = producing;
    expect(finishedWhileProducing).toBe(true);
    expect(logs[0]).toMatch(/^backup: copying .*live\.db \(\d+\.\d MiB with its WAL\) to .*backup\.db$/);
    expect(logs[logs.length - 1]).toMatch(/^backup of .*live\.db written to .*backup\.db \(\d+\.\d MiB in \d+ ms\)$/);
    expect(fs.readdirSync(path.dirname(dest))).toEqual(['backup.db']); // no temporary file left

    const perf = await producer;
    expect(perf.code).toBe(0);
    expect(await source.stop()).toBe(0);
    source = undefined;

    const check = new Database(dest, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    copy = await startTestBroker(`sqlite://${dest}`);
    const during = (await copy.context.storage.offsets('during', 0))!.highWatermark;
    expect(during).toBeGreaterThan(0); // taken while the producer wrote
    expect((await copy.context.storage.offsets('bulk', 0))!.highWatermark).toBe(12000);
    const got = await kcat(copy, ['-C', '-t', 'before', '-o', 'beginning', '-e', '-f', '%s\n'], { timeoutMs: 30_000 });
    expect(got.code).toBe(0);
    expect(got.stdout.trimEnd().split('\n')).toEqual(lines);
  }, 120_000);

  it('leaves nothing under the destination name when the copy fails', async () => {
    const notADatabase = path.join(tmp.dir, 'garbage.db');
    fs.writeFileSync(notADatabase, Buffer.alloc(64 * 1024, 7));
    const dest = path.join(tmp.dir, 'failed', 'backup.db');
    await expect(backupCommand(['--storage', `sqlite://${notADatabase}`, dest], () => {})).rejects.toThrow(
      /backup of .*garbage\.db to .*backup\.db failed: file is not a database.*; nothing was written under/,
    );
    expect(fs.readdirSync(path.dirname(dest))).toEqual([]);
  });
});

/** Whether partition 0 of `topic` has a record (kcat asks for its high watermark). */
async function hasRecords(port: number, topic: string): Promise<boolean> {
  const r = await run('kcat', ['-b', `127.0.0.1:${port}`, '-Q', '-t', `${topic}:0:-1`], { timeoutMs: 5000 });
  const m = new RegExp(`${topic} \\[0\\] offset (\\d+)`).exec(r.stdout);
  return m !== null && Number(m[1]) > 0;
}
