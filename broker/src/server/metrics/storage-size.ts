// minnow_database_bytes, minnow_data_volume_bytes, minnow_data_volume_free_bytes: the database
// against the volume it lives on, so a dashboard shows how close a full disk is.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The database file plus its -wal (the WAL holds commits not yet checkpointed into the file). */
export function databaseBytes(dbPath: string): number {
  return fileBytes(dbPath) + fileBytes(`${dbPath}-wal`);
}

function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}

export interface VolumeBytes {
  total: number;
  /** Free for the broker's user (bavail, not bfree: root's reserved blocks are not ours). */
  free: number;
}

/** Size and free space of the file system holding `dbPath` (statfs of its directory). */
export function volumeBytes(dbPath: string): VolumeBytes {
  const s = fs.statfsSync(path.dirname(dbPath));
  return { total: s.blocks * s.bsize, free: s.bavail * s.bsize };
}
