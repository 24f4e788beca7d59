// Broker-wide bound on fetched record bytes held in memory (MINNOW_FETCH_RESPONSE_MEMORY_BYTES):
// from the storage read until the client's socket has taken the response. Kafka needs no such
// bound (it sends log segments with sendfile); minnow holds each fetch response in its heap, so
// without one, 1,000 connections that fetch and never read could hold 1,000 x FETCH_MAX_BYTES.
//
// A fetch (Fetch and ShareFetch) takes memory before each partition read (as much as is free, up
// to what it wants), gives back what the read did not use, and holds the rest until its response
// is written (ResponseHold, released by the connection) or thrown away. When none is free a fetch reads nothing and waits,
// as if the log had no new data: consumers see empty fetches, never an error.

export class ResponseMemory {
  private used = 0;

  constructor(readonly capacity: number) {}

  get usedBytes(): number {
    return this.used;
  }

  /** Up to `wanted` bytes, as many as are free; 0 when none is. */
  take(wanted: number): number {
    const n = Math.max(0, Math.min(wanted, this.capacity - this.used));
    this.used += n;
    return n;
  }

  /** Bytes read beyond what take() gave (KIP-74's first batch): counted, never refused. */
  add(n: number): void {
    this.used += n;
  }

  release(n: number): void {
    this.used -= n;
  }
}

/** What one response holds of the broker's ResponseMemory; released once, when the client has it. */
export class ResponseHold {
  private bytes = 0;

  constructor(private readonly memory: ResponseMemory) {}

  get heldBytes(): number {
    return this.bytes;
  }

  take(wanted: number): number {
    const n = this.memory.take(wanted);
    this.bytes += n;
    return n;
  }

  add(n: number): void {
    this.memory.add(n);
    this.bytes += n;
  }

  /**
   * A read given `taken` bytes (by take()) keeps `kept` of them in the response: the rest goes
   * back, or what it kept past them (KIP-74's first batch) is counted.
   */
  keep(taken: number, kept: number): void {
    if (kept > taken) this.add(kept - taken);
    else this.giveBack(taken - kept);
  }

  /** Gives back `n` of the bytes held (a read that used less than it took). */
  giveBack(n: number): void {
    const k = Math.min(n, this.bytes);
    this.memory.release(k);
    this.bytes -= k;
  }

  releaseAll(): void {
    this.memory.release(this.bytes);
    this.bytes = 0;
  }
}
