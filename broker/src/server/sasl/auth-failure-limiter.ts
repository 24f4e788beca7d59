// Failed SASL logins per client address: past MINNOW_SASL_MAX_FAILURES_PER_ADDRESS in a minute,
// that address's logins fail without their credentials being checked until the minute is over,
// so guessing passwords over many connections gains nothing. Bounded: at most MAX_ADDRESSES
// addresses are remembered (the oldest window is forgotten first).

const WINDOW_MS = 60_000;
const MAX_ADDRESSES = 10_000;

export class AuthFailureLimiter {
  /** Insertion order = age of the window, so the first key is the one to forget. */
  private readonly byAddress = new Map<string, { windowStartMs: number; failures: number }>();

  /** `maxFailures` 0: no limit. */
  constructor(private readonly maxFailures: number) {}

  /** Whether this address used up its failures for the current window. */
  blocked(address: string, nowMs: number): boolean {
    const w = this.window(address, nowMs);
    return this.maxFailures > 0 && w !== undefined && w.failures >= this.maxFailures;
  }

  recordFailure(address: string, nowMs: number): void {
    if (this.maxFailures === 0) return;
    const w = this.window(address, nowMs);
    if (w) {
      w.failures++;
      return;
    }
    if (this.byAddress.size >= MAX_ADDRESSES) this.byAddress.delete(this.byAddress.keys().next().value!);
    this.byAddress.set(address, { windowStartMs: nowMs, failures: 1 });
  }

  /** Addresses remembered (for tests of the bound). */
  get size(): number {
    return this.byAddress.size;
  }

  private window(address: string, nowMs: number) {
    const w = this.byAddress.get(address);
    if (w && nowMs - w.windowStartMs >= WINDOW_MS) {
      this.byAddress.delete(address);
      return undefined;
    }
    return w;
  }
}
