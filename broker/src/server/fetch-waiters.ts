// Long-poll support for Fetch (max_wait_ms): a fetch that found too few bytes waits on its
// partitions; an append wakes exactly the waiters of the partitions it wrote. No timers poll SQLite.
export const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

interface Waiter {
  keys: readonly string[];
  wake: () => void;
}

export class FetchWaiters {
  private byKey = new Map<string, Set<Waiter>>();
  private closed = false;

  /** Resolves when one of the partitions gets an append, after timeoutMs, or on close(). */
  wait(keys: readonly string[], timeoutMs: number): Promise<void> {
    if (this.closed || timeoutMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        keys,
        wake: () => {
          clearTimeout(timer);
          this.remove(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      for (const k of keys) {
        let set = this.byKey.get(k);
        if (!set) this.byKey.set(k, (set = new Set()));
        set.add(waiter);
      }
    });
  }

  notify(key: string): void {
    const set = this.byKey.get(key);
    if (!set) return;
    for (const w of [...set]) w.wake();
  }

  /** Wakes every waiter (shutdown) and makes later waits return at once. */
  close(): void {
    this.closed = true;
    for (const set of [...this.byKey.values()]) for (const w of [...set]) w.wake();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get size(): number {
    let n = 0;
    for (const s of this.byKey.values()) n += s.size;
    return n;
  }

  private remove(w: Waiter): void {
    for (const k of w.keys) {
      const set = this.byKey.get(k);
      if (!set) continue;
      set.delete(w);
      if (set.size === 0) this.byKey.delete(k);
    }
  }
}
