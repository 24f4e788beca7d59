// The free-space check behind MINNOW_MIN_FREE_BYTES (storage/disk-space.ts): cheap (statfs at
// most once a second or per 8 MiB appended), counts SQLite's free pages, keeps a reserve file,
// and logs "disk full" once a minute at most.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DiskSpace, freeBytes, releaseReserveIfFull, reserveBytesFor } from '../../src/storage/disk-space';
import { tempDir } from '../integration/helpers';

const MiB = 1024 * 1024;

describe('DiskSpace', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());
  const dbPath = path.join(tmp.dir, 'minnow.db');

  function make(floorBytes: number, reusable = 0) {
    let now = 0;
    const logs: string[] = [];
    let statfsCalls = 0;
    const space = new DiskSpace({
      dbPath,
      floorBytes,
      reusableBytes: () => {
        statfsCalls++; // called once per refresh, with the statfs
        return reusable;
      },
      log: (msg) => logs.push(msg),
      clock: () => now,
    });
    return { space, logs, refreshes: () => statfsCalls, advance: (ms: number) => (now += ms) };
  }

  it('looks at the file system at most once a second, or after 8 MiB appended', () => {
    const { space, refreshes, advance } = make(0);
    space.check();
    space.check();
    advance(999);
    space.check();
    expect(refreshes()).toBe(1);
    advance(1);
    space.check();
    expect(refreshes()).toBe(2);
    space.appended(8 * MiB);
    space.check();
    expect(refreshes()).toBe(3);
    space.invalidate();
    space.check();
    expect(refreshes()).toBe(4);
  });

  it('refuses below the floor with the disk-full message, counting free pages inside the database as room', () => {
    const free = freeBytes(tmp.dir);
    const below = make(free + 100 * MiB).space.check();
    expect(below.ok).toBe(false);
    expect(below.message).toMatch(
      new RegExp(`^disk full: \\d+ bytes free on ${tmp.dir}, floor ${free + 100 * MiB} \\(MINNOW_MIN_FREE_BYTES\\)`),
    );
    expect(make(free + 100 * MiB, 200 * MiB).space.check().ok).toBe(true);
  });

  it('logs "disk full" once a minute at most', () => {
    const { space, logs, advance } = make(2 ** 50);
    for (let i = 0; i < 50; i++) {
      space.refresh();
      space.full();
      advance(1000);
    }
    expect(logs.filter((l) => /^disk full: \d+ bytes free on /.test(l))).toHaveLength(1);
    advance(60_000);
    space.refresh();
    expect(logs.filter((l) => /^disk full: /.test(l))).toHaveLength(2);
  });

  it('keeps a reserve file of a sixteenth of the floor (at most 16 MiB), released when the disk has less room than it', () => {
    expect(reserveBytesFor(256 * MiB)).toBe(16 * MiB);
    expect(reserveBytesFor(4 * MiB)).toBe(256 * 1024);
    expect(reserveBytesFor(0)).toBe(0);
    const { space } = make(4 * MiB);
    space.refresh();
    expect(fs.statSync(`${dbPath}.reserve`).size).toBe(256 * 1024);
    expect(releaseReserveIfFull(dbPath)).toBeUndefined(); // this disk has room
    expect(space.full()).toBe(256 * 1024);
    expect(fs.existsSync(`${dbPath}.reserve`)).toBe(false);
  });
});
