import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { StorageError } from '../../src/storage/storage';
import { promised } from '../../src/storage/sync-adapter';
import { storageContract } from './contract';

storageContract('memory', () => Promise.resolve(promised(new MemoryStorage())));

describe('memory storage', () => {
  it('has nothing to back up', async () => {
    await expect(new MemoryStorage().backup('/tmp/x.db')).rejects.toThrow(StorageError);
    await expect(new MemoryStorage().backup('/tmp/x.db')).rejects.toThrow(/memory:\/\/ has nothing to back up/);
  });
});
