// One connection of its own that LISTENs (a pooled connection cannot: LISTEN belongs to a
// session). Reconnects after a loss with a backoff; a notification sent while it was away is
// lost, so `onReconnect` tells the owner to re-read what it caches (docs/postgres.md "Fetch
// long-poll": a missed append costs at most a fetch's max_wait_ms).
import { Client, type ClientConfig } from 'pg';
import type { Logger } from '../logger';

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;
/** A connection attempt or the LISTEN statements that take longer: given up and tried again. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface NotificationHandlers {
  /** channel -> handler of its payloads. */
  channels: Record<string, (payload: string) => void>;
  /** After a reconnect (not the first connect): notifications may have been missed. */
  onReconnect?: () => void;
}

export class NotificationListener {
  private client: Client | undefined;
  private stopped = false;
  private retryMs = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | undefined;
  private connectedOnce = false;
  private readonly config: ClientConfig;

  constructor(
    config: ClientConfig,
    private readonly handlers: NotificationHandlers,
    private readonly logger: Logger,
  ) {
    // Without a timeout a connection attempt to an address that never answers (a failover whose
    // DNS still names the old primary) waits for ever, and no reconnect is tried after it.
    this.config = { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, query_timeout: CONNECT_TIMEOUT_MS, ...config };
  }

  /** Resolves once listening (or rejects with the first connection's error). */
  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new Client(this.config);
    // An 'error' without a listener would crash the process; the 'end' that follows reconnects.
    client.on('error', (err) => this.logger.warn('LISTEN connection failed', { err: err.message }));
    client.on('end', () => {
      if (this.client === client) this.client = undefined;
      if (!this.stopped) this.scheduleReconnect();
    });
    client.on('notification', (msg) => {
      const handler = this.handlers.channels[msg.channel];
      if (!handler) return;
      try {
        handler(msg.payload ?? '');
      } catch (err) {
        this.logger.error('a notification handler failed', { channel: msg.channel, err });
      }
    });
    try {
      await client.connect();
      for (const channel of Object.keys(this.handlers.channels)) await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (err) {
      client.removeAllListeners('end');
      destroy(client);
      throw err;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.retryMs = RETRY_MIN_MS;
    if (this.connectedOnce) this.handlers.onReconnect?.();
    this.connectedOnce = true;
  }

  private scheduleReconnect(): void {
    if (this.timer || this.stopped) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect().catch((err: Error) => {
        this.logger.warn('LISTEN reconnect failed; retrying', { err: err.message, retryMs: this.retryMs });
        this.scheduleReconnect();
      });
    }, delay);
    this.timer.unref();
  }

  /**
   * Drops the connection and listens again on a new one (then onReconnect): after this broker lost
   * the database, its LISTEN socket may be half-open (a black hole sends no RST) and would never
   * deliver a notification again, nor notice.
   */
  restart(): void {
    const c = this.client;
    if (!c || this.stopped) return;
    (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    if (!c) return;
    // A goodbye that the database never acknowledges (a silent connection) must not hold the stop.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([c.end().catch(() => {}), new Promise((r) => (timer = setTimeout(r, 2_000)))]);
    clearTimeout(timer);
    destroy(c);
  }
}

/** Closes the client's socket at once (end() waits for the server's side of the goodbye). */
function destroy(client: Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
