// Start-up checks of the database file (storage/sqlite/startup-checks.ts): a damaged file and a
// read-only file system each stop `minnow serve` with a non-zero exit and a message that says
// what is wrong and what to do.
import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { itWithTools } from '../support/external-tools';
import { run, startTestBroker, tempDir } from './helpers';
import { MINNOW } from './serve-child';

const serve = (db: string) =>
  run('node', [MINNOW, 'serve', '--listener', 'tcp://127.0.0.1:0', '--storage', `sqlite://${db}`], {
    timeoutMs: 20_000,
  });

/** A minnow database with one topic, closed cleanly (its WAL folded into the file). */
async function makeDatabase(db: string): Promise<void> {
  const broker = await startTestBroker(`sqlite://${db}`);
  await broker.context.storage.createTopic('t', 3, {});
  await broker.stop();
}

describe('start-up checks', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('refuses a file whose header is garbage: exit 1, "is damaged", and how to recover', async () => {
    const db = path.join(tmp.dir, 'header.db');
    await makeDatabase(db);
    const fd = fs.openSync(db, 'r+');
    fs.writeSync(fd, Buffer.alloc(100, 0x5a), 0, 100, 0);
    fs.closeSync(fd);
    const r = await serve(db);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`database ${db} is damaged`);
    expect(r.stderr).toMatch(/restore your latest `minnow backup` copy/);
  }, 30_000);

  it('finds a damaged catalogue page with quick_check: exit 1, names the table', async () => {
    const db = path.join(tmp.dir, 'page.db');
    await makeDatabase(db);
    const probe = new Database(db, { readonly: true });
    const root = probe.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'partition'").pluck().get() as number;
    const pageSize = probe.pragma('page_size', { simple: true }) as number;
    probe.close();
    const fd = fs.openSync(db, 'r+');
    // A leaf page whose cell pointers point past the page: SQLite reads it only when asked.
    const junk = Buffer.alloc(pageSize, 0);
    junk.writeUInt8(0x0d, 0); // table leaf
    junk.writeUInt16BE(3, 3); // 3 cells
    junk.writeUInt16BE(pageSize - 4, 5);
    for (let i = 0; i < 3; i++) junk.writeUInt16BE(0xfff0, 8 + 2 * i);
    fs.writeSync(fd, junk, 0, pageSize, (root - 1) * pageSize);
    fs.closeSync(fd);
    const r = await serve(db);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`database ${db} is damaged \\(quick_check of table partition: `));
  }, 30_000);

  // Root writes to a read-only folder anyway: as root, only a read-only tmpfs makes this case.
  const readOnlyTest = process.getuid?.() === 0 ? itWithTools('tmpfs mount') : it;
  readOnlyTest(
    'says plainly that the file system is read-only (a read-only tmpfs where mounting is allowed, else a read-only folder)',
    async () => {
      const dir = path.join(tmp.dir, 'ro');
      fs.mkdirSync(dir);
      const mounted =
        process.getuid?.() === 0 &&
        (await run('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir]).catch(() => undefined))?.code === 0;
      const db = path.join(dir, 'minnow.db');
      try {
        await makeDatabase(db);
        if (mounted) expect((await run('mount', ['-o', 'remount,ro', dir])).code).toBe(0);
        else fs.chmodSync(dir, 0o555);
        const r = await serve(db);
        expect(r.code).toBe(1);
        if (mounted) expect(r.stderr).toContain(`the file system holding ${dir} is read-only (EROFS)`);
        else expect(r.stderr).toMatch(new RegExp(`${dir} is not writable by this user \\(uid \\d+, EACCES\\)`));
      } finally {
        if (mounted) await run('umount', [dir]);
        else fs.chmodSync(dir, 0o755);
      }
    },
    30_000,
  );
});
