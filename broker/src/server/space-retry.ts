// Writes that free space (DeleteRecords, DeleteTopics, retention) need a little WAL room too: on
// a full disk the reserve file goes (storage/disk-space.ts) and the write runs once more, so the
// operator's way out of a full disk always works.
import { StorageError } from '../storage/storage';
import type { BrokerContext } from './context';

export async function retryIfDiskFull<T>(
  broker: Pick<BrokerContext, 'diskSpace'>,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof StorageError && err.diskFull && broker.diskSpace && broker.diskSpace.full() > 0)) throw err;
    return await write();
  }
}
