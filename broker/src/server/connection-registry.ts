// The broker's open connections: refuses those over MAX_CONNECTIONS / MAX_CONNECTIONS_PER_IP on
// arrival, holds and closes those over their IP's connection creation rate (KIP-612), and closes
// idle ones (CONNECTIONS_MAX_IDLE_MS) and SASL ones that never log in (LOGIN_DEADLINE_MS) from one
// sweep timer, not a timer each.
import type { Socket } from 'node:net';
import type { BrokerConfig } from './config';
import type { Connection } from './connection';
import type { Logger, WarningLimiter } from '../logger';
import type { IpConnectionRate } from './quotas/ip-connection-rate';

/** Longest gap between two idle sweeps: a connection is closed at most this late. */
const MAX_SWEEP_INTERVAL_MS = 30_000;
/**
 * A connection of a sasl+ listener not logged in this long after it opened (or after
 * CONNECTIONS_MAX_IDLE_MS, if shorter) is closed, even if it keeps sending ApiVersions: it holds
 * one of its address's MINNOW_MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP slots, which a client that
 * never logs in must not keep from its neighbours. Real clients log in within milliseconds.
 */
export const LOGIN_DEADLINE_MS = 30_000;

export class ConnectionRegistry {
  readonly connections = new Set<Connection>();
  private readonly perIp = new Map<string, number>();
  /** Sockets admitted and not yet closed: the connections, and TLS handshakes in progress. */
  private admitted = 0;
  private readonly sweeper: NodeJS.Timeout;
  /** Sockets over their IP's connection creation rate, closed when their throttle time ends. */
  private readonly throttled = new Set<Socket>();

  constructor(
    private readonly config: Pick<BrokerConfig, 'maxConnections' | 'maxConnectionsPerIp' | 'connectionsMaxIdleMs'>,
    private readonly logger: Logger,
    private readonly warnings: WarningLimiter,
    private readonly connectionRate?: IpConnectionRate,
  ) {
    const interval = Math.min(MAX_SWEEP_INTERVAL_MS, Math.max(10, Math.floor(config.connectionsMaxIdleMs / 10)));
    this.sweeper = setInterval(() => this.closeIdle(), interval);
    this.sweeper.unref();
  }

  /**
   * Counts a new socket against the limits from its arrival until it closes (a TLS one already
   * during its handshake, before it has a Connection) and returns true, or closes it at once and
   * returns false when a limit is reached, as Kafka does for max.connections.per.ip (for
   * max.connections Kafka delays the accept instead; Node cannot pause accepting, so minnow closes
   * it too).
   */
  admit(socket: Socket): boolean {
    const ip = (socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const fromIp = this.perIp.get(ip) ?? 0;
    const refused =
      this.admitted >= this.config.maxConnections
        ? `MAX_CONNECTIONS=${this.config.maxConnections}`
        : fromIp >= this.config.maxConnectionsPerIp
          ? `MAX_CONNECTIONS_PER_IP=${this.config.maxConnectionsPerIp}`
          : null;
    if (refused) {
      socket.on('error', () => {});
      socket.destroy();
      this.warnings.warn(
        `refusing connection: ${refused} reached`,
        { remote: ip, open: this.admitted, fromIp },
        `refused ${refused}`,
      );
      return false;
    }
    const throttleMs = this.connectionRate?.recordAndGetThrottleTimeMs(ip, Date.now()) ?? 0;
    if (throttleMs > 0) {
      this.holdThenClose(socket, ip, throttleMs);
      return false;
    }
    this.perIp.set(ip, fromIp + 1);
    this.admitted++;
    socket.once('close', () => {
      this.admitted--;
      const n = (this.perIp.get(ip) ?? 1) - 1;
      if (n > 0) this.perIp.set(ip, n);
      else this.perIp.delete(ip);
    });
    return true;
  }

  /** Tracks an admitted socket's Connection (idle sweep, stop) until `socket` (a TLS one: the decrypted side) closes. */
  attach(socket: Socket, c: Connection): void {
    this.connections.add(c);
    socket.once('close', () => this.connections.delete(c));
  }

  /**
   * KIP-612: a connection over its IP's connection_creation_rate is never read and is closed once
   * its throttle time has passed (Kafka's Acceptor keeps it as a DelayedCloseSocket), so a client
   * reconnecting in a loop is slowed down instead of spinning.
   */
  private holdThenClose(socket: Socket, ip: string, throttleMs: number): void {
    socket.on('error', () => {});
    socket.pause();
    this.throttled.add(socket);
    const timer = setTimeout(() => socket.destroy(), throttleMs);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      this.throttled.delete(socket);
    });
    this.warnings.warn(
      'refusing connection: over connection_creation_rate of its IP (closed after its throttle time)',
      { remote: ip, throttleMs, rate: this.connectionRate?.rateFor(ip) },
      'refused connection_creation_rate',
    );
  }

  closeIdle(): void {
    const now = performance.now();
    const since = now - this.config.connectionsMaxIdleMs;
    const loginSince = now - Math.min(LOGIN_DEADLINE_MS, this.config.connectionsMaxIdleMs);
    for (const c of this.connections) {
      if (c.loginOverdue(loginSince)) {
        this.warnings.log('info', 'closing a SASL connection that has not logged in', {
          connectionId: c.id,
          deadlineMs: Math.min(LOGIN_DEADLINE_MS, this.config.connectionsMaxIdleMs),
        });
        c.close();
        continue;
      }
      if (!c.idleSince(since)) continue;
      this.warnings.log('info', 'closing idle connection (CONNECTIONS_MAX_IDLE_MS)', {
        connectionId: c.id,
        idleMs: this.config.connectionsMaxIdleMs,
      });
      c.close();
    }
  }

  stop(): void {
    clearInterval(this.sweeper);
    for (const s of this.throttled) s.destroy();
    this.logger.debug('connection registry stopped', { open: this.connections.size });
  }
}
