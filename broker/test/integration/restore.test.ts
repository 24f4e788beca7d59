// `minnow restore`: a backup put in place of a database that still has a live WAL gives exactly
// the backup's content (the stale -wal/-shm are removed, never replayed onto the restored file),
// and a running broker's database is refused.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { backupCommand } from '../../src/cli/backup';
import { restoreCommand } from '../../src/cli/restore';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { kcat, startTestBroker, tempDir } from './helpers';

/** Opens `db` in another process, writes to its WAL without checkpointing, and dies: a live WAL. */
function leaveLiveWal(db: string): void {
  const script = `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new Database(process.argv[1]);
    db.pragma('wal_autocheckpoint = 0');
    db.exec('DELETE FROM record_batch');
    process.kill(process.pid, 'SIGKILL'); // no close: no checkpoint, the WAL stays
  `;
  spawnSync(process.execPath, ['-e', script, db]);
}

describeWithTools('kcat')('minnow restore', () => {
  const tmp = tempDir();
  const db = path.join(tmp.dir, 'minnow.db');
  const url = `sqlite://${db}`;
  const backup = path.join(tmp.dir, 'backup.db');
  let broker: RunningBroker | undefined;
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  const consume = async (b: RunningBroker) =>
    (await kcat(b, ['-C', '-t', 'kept', '-o', 'beginning', '-e', '-f', '%s\n'])).stdout.trimEnd().split('\n');

  it('refuses while a broker holds the database, then restores the backup and only it over a live WAL', async () => {
    broker = await startTestBroker(url);
    const lines = Array.from({ length: 200 }, (_, i) => `kept-${i}`);
    expect((await kcat(broker, ['-P', '-t', 'kept'], { input: lines.join('\n') + '\n' })).code).toBe(0);
    expect(await backupCommand(['--storage', url, backup], log)).toBe(0);
    expect((await kcat(broker, ['-P', '-t', 'kept'], { input: 'after-backup\n' })).code).toBe(0);

    await expect(restoreCommand([backup, '--storage', url], log)).rejects.toThrow(/database .* is in use by pid/);
    await broker.stop();
    broker = undefined;

    leaveLiveWal(db);
    expect(fs.statSync(`${db}-wal`).size).toBeGreaterThan(0); // the state a hand copy would mix with

    expect(await restoreCommand([backup, '--storage', url], log)).toBe(0);
    expect(logs.join('\n')).toContain(`restore: removing ${db}-wal`);
    expect(fs.existsSync(`${db}-wal`)).toBe(false);
    expect(fs.existsSync(`${db}-shm`)).toBe(false);

    broker = await startTestBroker(url);
    expect(await consume(broker)).toEqual(lines); // not after-backup, and not the WAL's empty table
  });

  it('refuses what is not a minnow backup, and leaves the database alone', async () => {
    await broker?.stop();
    broker = undefined;
    const before = fs.readFileSync(db);
    const text = path.join(tmp.dir, 'notes.db');
    fs.writeFileSync(text, 'not a database at all');
    await expect(restoreCommand([text, '--storage', url], log)).rejects.toThrow(/is not an SQLite database/);
    const other = path.join(tmp.dir, 'other.db');
    spawnSync(process.execPath, [
      '-e',
      `new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(process.argv[1]).exec('CREATE TABLE t (x)')`,
      other,
    ]);
    await expect(restoreCommand([other, '--storage', url], log)).rejects.toThrow(
      /not minnow's \(no schema_version table\)/,
    );
    const torn = path.join(tmp.dir, 'torn.db');
    fs.writeFileSync(torn, fs.readFileSync(backup).subarray(0, 8192)); // a copy cut short
    await expect(restoreCommand([torn, '--storage', url], log)).rejects.toThrow(/quick_check|cannot be read|malformed/);
    expect(fs.readFileSync(db).equals(before)).toBe(true);
  });
});
