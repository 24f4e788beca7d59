import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { databaseBytes, volumeBytes } from '../../../src/server/metrics/storage-size';

describe('database and volume size', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-size-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('adds the -wal to the database file, and counts a missing -wal as 0', () => {
    const db = path.join(dir, 'minnow.db');
    fs.writeFileSync(db, Buffer.alloc(4096));
    expect(databaseBytes(db)).toBe(4096);
    fs.writeFileSync(`${db}-wal`, Buffer.alloc(1000));
    fs.writeFileSync(`${db}-shm`, Buffer.alloc(32768)); // shared memory index, not data
    expect(databaseBytes(db)).toBe(5096);
  });

  it("reports the size and free space of the database's file system", () => {
    const v = volumeBytes(path.join(dir, 'minnow.db'));
    const s = fs.statfsSync(dir);
    expect(v.total).toBe(s.blocks * s.bsize);
    expect(v.total).toBeGreaterThan(0);
    expect(v.free).toBeGreaterThan(0);
    expect(v.free).toBeLessThanOrEqual(v.total);
  });
});
