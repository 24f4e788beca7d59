// Broker-wide bound on request bytes held in memory (Kafka's queued.max.request.bytes, its
// MemoryPool): frames being read plus decoded requests not yet answered. A connection reserves a
// whole frame when its 4-byte size prefix arrives, as Kafka allocates the whole receive buffer
// then; when the pool cannot give it, the connection stops reading until memory is released.
//
// No deadlock: a reservation covers the whole frame, so a connection that got one can finish
// reading it without asking again, and every reservation ends when its request is answered (or its
// connection closes, or the idle timeout closes a connection that stopped sending). Since no frame
// may be larger than the pool (config check), every waiter fits once the others are released.

export class RequestMemoryPool {
  private used = 0;
  /** Connections waiting for memory, woken in arrival order. */
  private readonly waiters = new Set<() => void>();

  constructor(readonly capacity: number) {}

  get usedBytes(): number {
    return this.used;
  }

  /** Takes n bytes if they are free; else false (the caller waits with onRelease). */
  tryReserve(n: number): boolean {
    if (this.used + n > this.capacity) return false;
    this.used += n;
    return true;
  }

  release(n: number): void {
    if (n <= 0) return;
    this.used -= n;
    if (this.waiters.size === 0) return;
    // Wake waiters in order; each retries its own reservation (and re-registers if it still fails).
    for (const wake of [...this.waiters]) {
      if (this.used >= this.capacity) break;
      this.waiters.delete(wake);
      wake();
    }
  }

  /** Calls `wake` once, after the next release that leaves some memory free. */
  onRelease(wake: () => void): void {
    this.waiters.add(wake);
  }

  cancel(wake: () => void): void {
    this.waiters.delete(wake);
  }
}
