// One task at a time per key (issue 18): with storage answering by Promise, two requests for the
// same group, transactional id, topic or user could interleave between a check and the write it
// decides. Tasks of one key run in arrival order; other keys are not held up. A key with nothing
// queued costs no memory. This orders the requests one broker sees; several brokers on one
// database rely on the engine's write re-checking instead (docs/postgres.md).
export class KeyedSerial<K = string> {
  private readonly tails = new Map<K, Promise<unknown>>();

  /** Runs `task` after every earlier task of `key` has settled; its result or rejection is the caller's. */
  run<T>(key: K, task: () => T | Promise<T>): Promise<T> {
    const before = this.tails.get(key);
    const result = before ? before.then(task, task) : invoke(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a task queued or running (tests). */
  get size(): number {
    return this.tails.size;
  }
}

function invoke<T>(task: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(task());
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * Topic catalog changes of one broker (CreateTopics, CreatePartitions, DeleteTopics, Metadata's
 * auto-creation), keyed by its storage: an exists-check, the partition budget and the write they
 * decide run without another change in between.
 */
export const catalogChanges = new KeyedSerial<object>();
