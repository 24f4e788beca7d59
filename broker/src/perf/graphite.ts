// Graphite's plaintext protocol ("<path> <value> <unix seconds>\n", one metric a line), as
// sangrenel sends its per-interval figures, so load can be overlaid on the broker's own metrics.
import * as net from 'node:net';

export interface IntervalMetrics {
  /** Records acknowledged per second in the interval. */
  rate: number;
  /** Records failed per second. */
  errorRate: number;
  bytesPerSec: number;
  /** Interval p99 latency, ms. */
  p99Ms: number;
}

/** Keeps a path segment to [A-Za-z0-9_-] (dots separate segments). */
export function sanitizePrefix(prefix: string): string {
  return prefix
    .split('.')
    .map((s) => s.replace(/[^A-Za-z0-9_-]/g, '_'))
    .filter(Boolean)
    .join('.');
}

export function graphiteLines(prefix: string, m: IntervalMetrics, unixMs: number): string {
  const p = sanitizePrefix(prefix);
  const t = Math.floor(unixMs / 1000);
  const num = (x: number) => (Number.isFinite(x) ? String(Math.round(x * 1000) / 1000) : '0');
  return [
    `${p}.rate ${num(m.rate)} ${t}`,
    `${p}.error_rate ${num(m.errorRate)} ${t}`,
    `${p}.bytes_per_sec ${num(m.bytesPerSec)} ${t}`,
    `${p}.p99_ms ${num(m.p99Ms)} ${t}`,
  ]
    .map((l) => `${l}\n`)
    .join('');
}

/**
 * A best-effort sender: one TCP connection, reconnected on the next flush after an error. Metrics
 * never hold up the load (a lost interval is reported once, then skipped silently).
 */
export class GraphiteSender {
  private socket: net.Socket | undefined;
  private warned = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly warn: (msg: string) => void,
  ) {}

  send(payload: string): void {
    if (!this.socket || this.socket.destroyed) {
      this.socket = net.connect({ host: this.host, port: this.port });
      this.socket.on('error', (err) => {
        if (!this.warned)
          this.warn(`graphite ${this.host}:${this.port}: ${err.message} (metrics for this interval are lost)`);
        this.warned = true;
        this.socket?.destroy();
      });
      this.socket.unref();
    }
    this.socket.write(payload);
  }

  close(): Promise<void> {
    const s = this.socket;
    if (!s || s.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        s.destroy();
        resolve();
      }, 1000);
      s.end(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
