// The one error the storage engines throw (I/O, corruption, a full disk); Kafka outcomes are error
// codes. Its own module so that the interface's parts (topic-store.ts ...) can name it without a cycle.
export class StorageError extends Error {
  override readonly name = 'StorageError';
  /** The engine's error code when it has one (SQLite: SQLITE_FULL, SQLITE_IOERR_WRITE ...). */
  readonly code: string | undefined;

  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(message, options);
    this.code = options?.code;
  }

  /** The file system is full: the write failed for want of space, nothing else is wrong. */
  get diskFull(): boolean {
    return this.code === 'SQLITE_FULL';
  }
}
