// A connection's share of the broker-wide request memory pool (QUEUED_MAX_REQUEST_BYTES): a frame
// is read only once its bytes are reserved, and they go back when its request is answered.
import type { RequestMemoryPool } from './request-memory-pool';

export class RequestAdmission {
  /** Request bytes this connection holds in the pool (frames admitted and not yet answered). */
  private held = 0;

  /** `wake`: called when the pool, full at the last attempt, has room again. */
  constructor(
    private readonly pool: RequestMemoryPool,
    private readonly maxRequestBytes: number,
    private readonly wake: () => void,
  ) {}

  /**
   * Reserves a frame's bytes when its size prefix arrives. Besides the pool, one connection may
   * hold several unanswered requests only while they total at most one maximum frame, so a single
   * pipelining client cannot take the whole pool from the others.
   */
  admit(size: number): boolean {
    if (this.held > 0 && this.held + size > this.maxRequestBytes) return false; // retried when its own requests are answered
    if (!this.pool.tryReserve(size)) {
      this.pool.onRelease(this.wake);
      return false;
    }
    this.held += size;
    return true;
  }

  /** A request is answered (or will never be): its bytes go back to the pool. */
  release(bytes: number): void {
    this.held -= bytes;
    this.pool.release(bytes);
  }

  /** The connection closed: everything it held goes back, and it waits for the pool no more. */
  close(): void {
    this.pool.cancel(this.wake);
    this.pool.release(this.held);
    this.held = 0;
  }
}
