// The postgres:// engine's connection pool and transactions (docs/postgres.md). Every query goes
// through `Db`: failures become StorageError with the SQLSTATE or socket code, so the server
// answers a retriable KAFKA_STORAGE_ERROR rather than crashing, and the pool reconnects after a
// PostgreSQL restart (broken clients are discarded, not returned to the pool).
import { Pool } from 'pg';
import type { PoolClient, PoolConfig, QueryConfig, QueryResultRow } from 'pg';
import { types } from 'pg';
import { StorageError } from '../storage';
import { escapeParams, unescapeRows } from './nul-escape';

/**
 * A statement prepared once per connection under its name (then executed with a cached plan):
 * for the hot, fixed-text queries (fetch, lookups, append's lock). Never for text built per call.
 */
export interface Prepared {
  name: string;
  text: string;
}

const preparedTexts = new Map<string, string>();

/** Names are per connection, so one name must always mean one text: checked when modules load. */
export function prepared(name: string, text: string): Prepared {
  const full = `minnow_${name}`;
  const known = preparedTexts.get(full);
  if (known !== undefined && known !== text) throw new Error(`prepared statement ${full} defined twice`);
  preparedTexts.set(full, text);
  return { name: full, text };
}

/** One query runner: the pool (autocommit) or a transaction's client. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string | Prepared, values?: unknown[]): Promise<R[]>;
  /**
   * Inside Db.tx only: `fn` runs (on the pool, not awaited) once the transaction has committed;
   * never if it rolls back. For work that must not hold the transaction open, e.g. NOTIFY.
   */
  afterCommit?(fn: (db: Queryable) => Promise<unknown>): void;
}

export interface DbOptions {
  /** Connections per broker (docs/postgres.md: RDS db.t4g.micro allows ~80 in all). */
  max?: number;
  /** statement_timeout: a stuck query fails its request instead of holding a connection. */
  statementTimeoutMs?: number;
  connectionTimeoutMs?: number;
  /** idle_in_transaction_session_timeout (default 10 s, the brokers' lease). */
  idleInTransactionTimeoutMs?: number;
  /** Where pool errors (an idle connection lost) are reported; default: nowhere, the next query retries. */
  onError?: (err: Error) => void;
}

// int8 (and numeric: sum() of bigint) as JS numbers: offsets and timestamps are numbers in the
// Storage interface (exact up to 2^53). Per pool, not pg.types globally: other pg users unaffected.
const NUMBER_OIDS = new Set([20, 1700]);
const typeParsers = {
  getTypeParser: ((oid: number, format?: string) =>
    NUMBER_OIDS.has(oid) && format !== 'binary'
      ? (v: string) => Number(v)
      : types.getTypeParser(oid, format as 'text')) as typeof types.getTypeParser,
};

/** How much longer than statement_timeout the client waits for an answer (the network lost). */
const QUERY_TIMEOUT_MARGIN_MS = 5_000;

export class Db implements Queryable {
  readonly pool: Pool;
  private readonly onError: ((err: Error) => void) | undefined;
  /** The pool's open connections, so dropConnections() can reach the checked-out ones. */
  private readonly clients = new Set<PoolClient>();
  private refusal: (() => Error | undefined) | undefined;

  constructor(config: PoolConfig, opts: DbOptions = {}) {
    const statementTimeoutMs = opts.statementTimeoutMs ?? 30_000;
    this.pool = new Pool({
      ...config,
      max: opts.max ?? 10,
      statement_timeout: statementTimeoutMs,
      // statement_timeout is the server's: with the route to it lost (no RST, no FIN: a black hole),
      // the answer never comes and TCP gives up only after many minutes. So the client's own too.
      query_timeout: statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS,
      connectionTimeoutMillis: opts.connectionTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      // A broker that vanishes mid-transaction (host lost, not a clean socket close) would keep its
      // partitions' row locks, stalling every other broker's appends to them: PostgreSQL ends such a
      // session after this long idle inside a transaction (ours never wait between statements).
      idle_in_transaction_session_timeout: opts.idleInTransactionTimeoutMs ?? 10_000,
      application_name: config.application_name ?? 'minnow',
      types: typeParsers,
    });
    this.onError = opts.onError;
    // Without a listener an idle client's error (PostgreSQL restarted) would crash the process.
    this.pool.on('error', (err) => this.onError?.(err));
    this.pool.on('connect', (client) => {
      this.clients.add(client);
      // Checked-out clients have no pool listener; their query fails, the process must not.
      client.on('error', () => {});
    });
    this.pool.on('remove', (client) => this.clients.delete(client));
  }

  /**
   * While `check` returns an error, every query and transaction fails with it at once, without
   * touching the pool: a broker whose lease lapsed (src/cluster: PostgreSQL out of reach) answers
   * with retriable errors instead of waiting on connections that may never answer.
   */
  refuseWhile(check: () => Error | undefined): void {
    this.refusal = check;
  }

  /**
   * Destroys every open connection, the ones in use too: their queries fail now (a retriable
   * StorageError) instead of when TCP or query_timeout gives up. The pool opens new ones on demand.
   */
  dropConnections(): void {
    for (const client of this.clients) {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
  }

  async query<R extends QueryResultRow = QueryResultRow>(text: string | Prepared, values?: unknown[]): Promise<R[]> {
    const refused = this.refusal?.();
    if (refused) throw refused;
    for (let attempt = 1; ; attempt++) {
      try {
        return unescapeRows((await this.pool.query<R>(config(text, values))).rows);
      } catch (err) {
        const e = asStorageError(err);
        if (attempt >= TX_ATTEMPTS || !rolledBackByServer(e)) throw e;
      }
    }
  }

  /**
   * Runs `fn` in one transaction (BEGIN ... COMMIT; ROLLBACK on any error) on one pooled client.
   * `isolation`: e.g. 'REPEATABLE READ' for reads that must see one snapshot. A transaction
   * PostgreSQL rolled back to break a deadlock (40P01) or a serialization conflict (40001) runs
   * again from the start (TX_ATTEMPTS in all), so `fn` must not change what it was given; after
   * that the StorageError is retriable for the client (KAFKA_STORAGE_ERROR, NOT_COORDINATOR, ...).
   */
  async tx<T>(fn: (q: Queryable) => Promise<T>, isolation?: string): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.txOnce(fn, isolation);
      } catch (err) {
        if (attempt >= TX_ATTEMPTS || !rolledBackByServer(err)) throw err;
      }
    }
  }

  private async txOnce<T>(fn: (q: Queryable) => Promise<T>, isolation: string | undefined): Promise<T> {
    const refused = this.refusal?.();
    if (refused) throw refused;
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw asStorageError(err);
    }
    const hooks: ((db: Queryable) => Promise<unknown>)[] = [];
    const q: Queryable = {
      query: async <R extends QueryResultRow>(text: string | Prepared, values?: unknown[]) =>
        unescapeRows((await client.query<R>(config(text, values))).rows),
      afterCommit: (fn) => hooks.push(fn),
    };
    let broken: Error | undefined;
    // A checked-out client has no pool listener: without this, a connection lost between two
    // statements would be an uncaught 'error' event (a crash). The next statement fails instead.
    const onError = (err: Error) => (broken = err);
    client.on('error', onError);
    try {
      await client.query(isolation ? `BEGIN ISOLATION LEVEL ${isolation}` : 'BEGIN');
      const result = await fn(q);
      await client.query('COMMIT');
      for (const hook of hooks) hook(this).catch((err: unknown) => this.onError?.(asStorageError(err)));
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackErr) {
        broken = rollbackErr as Error; // the connection is gone: drop it from the pool
      }
      throw asStorageError(err);
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Attempts of a statement or transaction that PostgreSQL rolled back (deadlock, serialization). */
export const TX_ATTEMPTS = 3;

/** 40P01 (deadlock detected) and 40001 (serialization failure): nothing was done, run it again. */
export function rolledBackByServer(err: unknown): boolean {
  return err instanceof StorageError && (err.code === '40P01' || err.code === '40001');
}

/** The query as node-postgres takes it; string parameters NUL-escaped (nul-escape.ts). */
function config(text: string | Prepared, params: unknown[] | undefined): QueryConfig {
  const values = escapeParams(params);
  return typeof text === 'string' ? { text, values } : { name: text.name, text: text.text, values };
}

/** SQLSTATE classes that mean "try again": connection (08), resources (53), operator (57), 40 (rollback). */
const RETRIABLE_CLASSES = new Set(['08', '40', '53', '57', '58']);

/**
 * PostgreSQL and socket failures become StorageError (KAFKA_STORAGE_ERROR) with `code` set:
 * the SQLSTATE (57014: statement timeout, 40P01 ...) or the socket's (ECONNREFUSED ...).
 * Errors thrown by the engine's own code pass through.
 */
export function asStorageError(err: unknown): Error {
  if (err instanceof StorageError) return err;
  const e = err as { message?: unknown; code?: unknown; severity?: unknown } | null;
  if (!e || typeof e !== 'object') return new StorageError(`postgres failed: ${String(err)}`);
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = String(e.message);
  const fromServer = typeof e.severity === 'string';
  const socket = code !== undefined && /^E[A-Z]+$/.test(code);
  // node-postgres reports a lost connection without a code ("Connection terminated unexpectedly").
  const lost =
    /connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|query read timeout/i.test(
      message,
    );
  if (fromServer || socket || lost) {
    return new StorageError(`postgres failed: ${message} (${code ?? 'connection lost'})`, {
      cause: err,
      code: code ?? 'ECONNRESET',
    });
  }
  return err instanceof Error ? err : new Error(message);
}

/** Whether a StorageError is worth retrying as is (connection loss, timeout, serialization). */
export function retriable(err: unknown): boolean {
  const code = err instanceof StorageError ? err.code : undefined;
  if (code === undefined) return false;
  return /^E[A-Z]+$/.test(code) || RETRIABLE_CLASSES.has(code.slice(0, 2));
}
