// Bytes a broker's data takes on disk, as `du` counts them: allocated blocks (st_blocks x 512), not
// file lengths. Kafka preallocates each segment's offset and time index to 10 MB
// (segment.index.bytes) as sparse files and trims them when the segment closes, so their length
// says little about the disk they use; SQLite's file length and its blocks agree.
import { lstatSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

export interface DiskUsage {
  /** What `du -s --block-size=1` prints: allocated bytes. */
  allocatedBytes: number;
  /** What `du -s --apparent-size --block-size=1` prints, less the directories' own sizes: file lengths. */
  apparentBytes: number;
  files: number;
  /**
   * Of allocatedBytes, minnow's reserve file (`<db>.reserve`, 16 MiB by default: space kept to
   * recover from a full disk, disk-space.ts): no data, so left out of the per-payload ratio.
   */
  reserveBytes?: number;
}

/** The fields of a stat that du adds up. */
export interface StatLike {
  size: number;
  blocks: number;
  isFile(): boolean;
}

/** Sums regular files only (du also counts directories' own blocks; a few KiB, left out here). */
export function sumUsage(stats: Iterable<StatLike>): DiskUsage {
  const u: DiskUsage = { allocatedBytes: 0, apparentBytes: 0, files: 0 };
  for (const s of stats) {
    if (!s.isFile()) continue;
    u.allocatedBytes += s.blocks * 512; // st_blocks is in 512-byte units whatever the block size
    u.apparentBytes += s.size;
    u.files++;
  }
  return u;
}

/** Every entry under `root` (or `root` itself when it is a file), without following links. */
function* walk(root: string): Generator<StatLike> {
  const s = lstatSync(root);
  yield s;
  if (s.isDirectory()) for (const name of readdirSync(root)) yield* walk(path.join(root, name));
}

/** du of a file or folder; paths that do not exist count nothing (SQLite's -wal after a clean close). */
export function diskUsage(...paths: string[]): DiskUsage {
  const stats: StatLike[] = [];
  for (const p of paths) {
    try {
      stats.push(...walk(p));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return sumUsage(stats);
}

/**
 * Disk bytes per byte of record payload (keys + values) the broker was sent, the reserve file left
 * out (issue 33 goal 5 reports it apart); NaN without payload.
 */
export function bytesPerPayloadByte(usage: DiskUsage, payloadBytes: number): number {
  return payloadBytes > 0 ? (usage.allocatedBytes - (usage.reserveBytes ?? 0)) / payloadBytes : NaN;
}
