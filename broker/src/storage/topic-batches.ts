// createTopics / deleteTopics for engines that store topics one at a time (memory://, whose calls
// cost no commit, and postgres://, where a transaction per topic keeps another broker's wait on
// the catalog short): each topic gets its own answer, a StorageError among them as a value.
import { StorageError } from './storage';

/** `write(item)` for each item, a StorageError kept as that item's answer. */
export function eachOnItsOwn<I, R>(items: readonly I[], write: (item: I) => R): (R | StorageError)[] {
  return items.map((item) => {
    try {
      return write(item);
    } catch (err) {
      if (err instanceof StorageError) return err;
      throw err;
    }
  });
}

/** As eachOnItsOwn, awaiting each write before the next (their order is the request's). */
export async function eachOnItsOwnAsync<I, R>(
  items: readonly I[],
  write: (item: I) => Promise<R>,
): Promise<(R | StorageError)[]> {
  const out: (R | StorageError)[] = [];
  for (const item of items) {
    try {
      out.push(await write(item));
    } catch (err) {
      if (err instanceof StorageError) out.push(err);
      else throw err;
    }
  }
  return out;
}
