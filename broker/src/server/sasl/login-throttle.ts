// What a failed SASL login costs, paid by the client that failed and not by its neighbours behind
// the same address (one NAT gateway, app host or Kubernetes node):
//
// - Kafka answers every failed authentication after connection.failed.authentication.delay.ms and
//   then closes the connection (KIP-306). minnow grows that delay with the failures of the same
//   (address, user): base, 2x base, 4x base ... up to a maximum, so a client retrying a stale
//   password slows down while another user, or the same user with the right password, from that
//   address logs in at once. Failures from one address under any user names also grow it (one
//   doubling per ADDRESS_FAILURES_PER_DOUBLING), so cycling user names does not reset it.
//   A correct password is never delayed nor refused; a success forgets its pair's failures.
// - A failed connection holds one of its address's unauthenticated-connection slots until its
//   delay is over, even when the client hangs up first: a guesser cannot open many connections and
//   drop each one as soon as the answer is late (a late answer tells "wrong"). Connections not yet
//   logged in hold a slot too; past MINNOW_MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP new connections of
//   sasl+ listeners from that address are closed on arrival (logged, counted in the metrics).
// Memory is bounded: at most MAX_REMEMBERED pairs and addresses with failures (the least recently
// failed go first), forgotten FORGET_AFTER_MS after their last failure.
// https://cwiki.apache.org/confluence/display/KAFKA/KIP-306%3A+Configuration+for+Delaying+Response+to+Failed+Authentication

import type { Socket } from 'node:net';
import type { WarningLimiter } from '../../logger';

export const MAX_REMEMBERED = 10_000;
export const FORGET_AFTER_MS = 10 * 60_000;
export const ADDRESS_FAILURES_PER_DOUBLING = 10;

export interface LoginThrottleSettings {
  /** CONNECTION_FAILED_AUTHENTICATION_DELAY_MS: the first failure's delay; 0 turns delays off. */
  baseDelayMs: number;
  /** MINNOW_SASL_FAILED_LOGIN_MAX_DELAY_MS: the longest a failure is answered after. */
  maxDelayMs: number;
  /** MINNOW_MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP. */
  maxUnauthenticatedPerAddress: number;
}

interface Failures {
  count: number;
  lastMs: number;
}

/** A Map in least-recently-failed order, bounded and expiring. */
class FailureCounts {
  private readonly byKey = new Map<string, Failures>();

  get(key: string, nowMs: number): number {
    const f = this.byKey.get(key);
    if (!f) return 0;
    if (nowMs - f.lastMs >= FORGET_AFTER_MS) {
      this.byKey.delete(key);
      return 0;
    }
    return f.count;
  }

  /** Counts one more failure and returns the count. */
  add(key: string, nowMs: number): number {
    const count = this.get(key, nowMs) + 1;
    this.byKey.delete(key); // re-inserted last: the first key is always the least recently failed
    if (this.byKey.size >= MAX_REMEMBERED) this.byKey.delete(this.byKey.keys().next().value!);
    this.byKey.set(key, { count, lastMs: nowMs });
    return count;
  }

  forget(key: string): void {
    this.byKey.delete(key);
  }

  get size(): number {
    return this.byKey.size;
  }
}

export class LoginThrottle {
  private readonly pairs = new FailureCounts();
  private readonly addresses = new FailureCounts();
  private readonly unauthenticated = new Map<string, number>();
  /** Failed logins answered (for the metrics endpoint). */
  failedLogins = 0;
  /** Connections closed on arrival over the unauthenticated cap (for the metrics endpoint). */
  refusedConnections = 0;

  constructor(private readonly settings: LoginThrottleSettings) {}

  /**
   * Counts a failed login of `user` ('' when the exchange failed before naming one) from
   * `address` and returns how long to wait before answering it.
   */
  failed(address: string, user: string, nowMs: number): number {
    this.failedLogins++;
    const { baseDelayMs, maxDelayMs } = this.settings;
    const pair = this.pairs.add(pairKey(address, user), nowMs);
    const fromAddress = this.addresses.add(address, nowMs);
    if (baseDelayMs === 0) return 0;
    const doublings = Math.max(pair - 1, Math.floor((fromAddress - 1) / ADDRESS_FAILURES_PER_DOUBLING));
    // 2 ** 31 and beyond are past any maximum (at most 60 s): no need to compute them.
    return Math.min(maxDelayMs, Math.max(baseDelayMs, baseDelayMs * 2 ** Math.min(doublings, 31)));
  }

  /** A successful login forgets the pair's failures (not the address's: others may still be failing). */
  succeeded(address: string, user: string): void {
    this.pairs.forget(pairKey(address, user));
  }

  /** Failures of the pair remembered now (tests). */
  failuresOf(address: string, user: string, nowMs: number): number {
    return this.pairs.get(pairKey(address, user), nowMs);
  }

  /**
   * Takes an unauthenticated-connection slot for a new connection from `address`: false (and
   * counted) when the address holds its maximum already. The caller gives it back with `release`.
   */
  tryOpen(address: string): boolean {
    const open = this.unauthenticated.get(address) ?? 0;
    if (open >= this.settings.maxUnauthenticatedPerAddress) {
      this.refusedConnections++;
      return false;
    }
    this.unauthenticated.set(address, open + 1);
    return true;
  }

  release(address: string): void {
    const open = (this.unauthenticated.get(address) ?? 1) - 1;
    if (open > 0) this.unauthenticated.set(address, open);
    else this.unauthenticated.delete(address);
  }

  /** Slots held by `address` (tests, the refusal's log line). */
  unauthenticatedFrom(address: string): number {
    return this.unauthenticated.get(address) ?? 0;
  }

  get maxUnauthenticatedPerAddress(): number {
    return this.settings.maxUnauthenticatedPerAddress;
  }

  /** Pairs and addresses remembered (for tests of the bound). */
  get remembered(): { pairs: number; addresses: number } {
    return { pairs: this.pairs.size, addresses: this.addresses.size };
  }
}

const pairKey = (address: string, user: string) => `${address}\u0000${user}`;

/**
 * A new connection of a sasl+ listener takes one of its address's unauthenticated slots, or is
 * closed at once, the refusal logged (once per burst) and counted by the throttle.
 */
export function admitUnauthenticated(throttle: LoginThrottle, socket: Socket, warnings: WarningLimiter): boolean {
  const address = (socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  if (throttle.tryOpen(address)) return true;
  socket.on('error', () => {});
  socket.destroy();
  const max = throttle.maxUnauthenticatedPerAddress;
  warnings.warn(
    `refusing connection from ${address}: ${max} connections from it have not logged in yet or failed within their delay (MINNOW_MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP=${max})`,
    { remote: address, open: throttle.unauthenticatedFrom(address) },
    'refused unauthenticated',
  );
  return false;
}
