// Long-poll support for Fetch (max_wait_ms): a fetch that found too few bytes waits on its
// partitions; an append wakes exactly the waiters of the partitions it wrote. No timers poll SQLite.
// close() (broker stop) wakes every waiter, including one that waits on no partition at all.
export const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

/** setTimeout's largest delay (a signed 32-bit int of ms). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

interface Waiter {
  keys: readonly string[];
  wake: () => void;
}

export class FetchWaiters {
  private byKey = new Map<string, Set<Waiter>>();
  /** Every waiter, whatever its keys: close() must reach the ones with none too. */
  private all = new Set<Waiter>();
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
      // Unref'd: a waiting fetch is held by its connection; its timer alone must never keep the
      // process alive (max_wait_ms may be 2^31-1 ms, 24.8 days).
      // Node fires a longer timeout after 1 ms: the caller's loop waits again until its deadline.
      const timer = setTimeout(waiter.wake, Math.min(timeoutMs, MAX_TIMEOUT_MS)).unref();
      this.all.add(waiter);
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

  /** Wakes every waiter (they look again and wait again): appends may have been missed (a lost NOTIFY). */
  wakeAll(): void {
    for (const w of [...this.all]) w.wake();
  }

  /** Wakes every waiter (shutdown) and makes later waits return at once. */
  close(): void {
    this.closed = true;
    for (const w of [...this.all]) w.wake();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get size(): number {
    return this.all.size;
  }

  private remove(w: Waiter): void {
    this.all.delete(w);
    for (const k of w.keys) {
      const set = this.byKey.get(k);
      if (!set) continue;
      set.delete(w);
      if (set.size === 0) this.byKey.delete(k);
    }
  }
}
