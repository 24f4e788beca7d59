// Several brokers on one PostgreSQL database (docs/postgres.md "Several brokers"): each holds a
// lease row renewed every heartbeat; the live set and its epoch come from the database; leaders
// and coordinators are placed by rendezvous hashing over the live set (placement.ts); a coordinator acts only
// while it holds the key's lease row, and stops acting (self-fences) when its own renewal is late
// by its monotonic clock, before the database would let another broker take the key over.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Pool, type PoolClient, type PoolConfig } from 'pg';
import { ErrorCode } from '../protocol/error-codes';
import type { Logger } from '../logger';
import type { BrokerNode, Cluster, ClusterView, CoordinatorCheck, CoordinatorKind, NamedEndpoint } from './cluster';
import { claim, CLUSTER_CHANNEL, heldKey, join, KIND_OF_CODE, leave, Registration, release, renew } from './membership';
import { NotificationListener } from './notification-listener';
import { clusterPoolConfig } from './cluster-pool';
import { resolveNodeId } from './node-id';
import { coordinatorOf, leaderOf, PLACEMENT_VERSION } from './placement';
import { ensureClusterSchema } from './schema';

export const DEFAULT_HEARTBEAT_MS = 2_000;
export const DEFAULT_LEASE_MS = 10_000;
/** A clean stop's goodbye must not hold the stop for long when the database is gone. */
const LEAVE_TIMEOUT_MS = 2_000;

export interface PostgresClusterOptions {
  /** pg's connection settings (connectionString for a postgres:// URL). */
  connection: PoolConfig;
  /** NODE_ID; else the id in nodeIdFile, else a new one from the database's sequence. */
  nodeId?: number;
  nodeIdFile: string;
  rack?: string | null;
  heartbeatMs?: number;
  leaseMs?: number;
  logger: Logger;
  /** Tests: a monotonic clock in ms. */
  monotonicNow?: () => number;
}

export class PostgresCluster implements Cluster {
  readonly shared = true;
  private current: ClusterView = { epoch: -1, brokers: [] };
  private reg!: Registration;
  private readonly heartbeatMs: number;
  private readonly leaseMs: number;
  private readonly mono: () => number;
  /** Monotonic ms after which this broker no longer trusts its lease (start of last renewal + lease). */
  private deadline = -Infinity;
  /** Coordinator leases held, "kind/key"; and those being claimed (kept by renewals meanwhile). */
  private readonly held = new Set<string>();
  private readonly claiming = new Map<string, Promise<boolean>>();
  private readonly changeListeners = new Set<(view: ClusterView) => void>();
  private readonly lostListeners = new Set<(kind: CoordinatorKind, key: string) => void>();
  private readonly lapseListeners: (() => void)[] = [];
  private readonly channels: Record<string, (payload: string) => void> = {};
  private readonly reconnectListeners: (() => void)[] = [];
  private listener: NotificationListener | undefined;
  private timer: NodeJS.Timeout | undefined;
  private fenceTimer: NodeJS.Timeout | undefined;
  /** The current lapse was acted on (onDeadline); reset by a renewal in time. */
  private lapseHandled = false;
  private ticking: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private stopped = false;
  /** Another process registered this node id: this one never acts again. */
  private replaced = false;

  private constructor(
    private readonly pool: Pool,
    private readonly opts: PostgresClusterOptions,
    readonly nodeId: number,
  ) {
    this.heartbeatMs = opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.mono = opts.monotonicNow ?? (() => performance.now());
  }

  /** Creates the tables if needed and settles the node id; join() registers the broker. */
  static async open(opts: PostgresClusterOptions): Promise<PostgresCluster> {
    // Bounded waits, on both ends (cluster-pool.ts).
    const pool = new Pool(clusterPoolConfig(opts.connection, opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS));
    pool.on('error', (err) => opts.logger.warn('cluster database connection failed', { err: err.message }));
    // The pool listens for errors on idle clients only: a checked-out client whose connection is
    // reset (the network back after a black hole) would otherwise crash the process. Its query fails.
    pool.on('connect', (client) => client.on('error', () => {}));
    try {
      const client = await pool.connect();
      try {
        await ensureClusterSchema(client);
      } finally {
        client.release();
      }
      const nodeId = await resolveNodeId(pool, opts.nodeId, opts.nodeIdFile);
      return new PostgresCluster(pool, opts, nodeId);
    } catch (err) {
      await pool.end().catch(() => {});
      throw err;
    }
  }

  /** Listens on a channel from join() on (minnow_append: other brokers' appends). */
  listen(channel: string, handler: (payload: string) => void): void {
    this.channels[channel] = handler;
  }

  /** Called when the LISTEN connection came back: notifications may have been missed. */
  onListenReconnect(handler: () => void): void {
    this.reconnectListeners.push(handler);
  }

  /** Registers this broker with its advertised addresses (known once its listeners are bound). */
  async join(endpoints: readonly NamedEndpoint[]): Promise<void> {
    this.reg = {
      nodeId: this.nodeId,
      incarnation: randomUUID(),
      rack: this.opts.rack ?? null,
      endpoints,
      leaseMs: this.leaseMs,
    };
    this.channels[CLUSTER_CHANNEL] = () => this.refresh();
    this.listener = new NotificationListener(
      this.opts.connection,
      { channels: this.channels, onReconnect: () => this.onReconnect() },
      this.opts.logger,
    );
    await this.listener.start();
    const started = this.mono();
    this.applyView(await this.withClient((client) => join(client, this.reg)));
    this.trusted(started);
    this.opts.logger.info('joined the cluster', {
      nodeId: this.nodeId,
      epoch: this.current.epoch,
      brokers: this.current.brokers.map((b) => b.nodeId),
    });
    this.schedule();
  }

  view(): ClusterView {
    return this.current;
  }

  leaderOf(topic: string, partition: number): number {
    const { brokers, placement } = this.current;
    return brokers.length === 0 ? this.nodeId : leaderOf(brokers, topic, partition, placementOf(placement)).nodeId;
  }

  coordinatorOf(_kind: CoordinatorKind, key: string): BrokerNode {
    const { brokers, placement } = this.current;
    return brokers.length === 0
      ? { nodeId: this.nodeId, rack: null, endpoints: [] }
      : coordinatorOf(brokers, key, placementOf(placement));
  }

  get fenced(): boolean {
    return this.replaced || this.stopped || this.mono() >= this.deadline;
  }

  /** Joined, but the last successful renewal is older than the lease: PostgreSQL is out of reach. */
  get lapsed(): boolean {
    return Number.isFinite(this.deadline) && !this.stopped && this.mono() >= this.deadline;
  }

  /** Called when the lease lapses (each time: a renewal in time ends the lapse). */
  onLapse(listener: () => void): void {
    this.lapseListeners.push(listener);
  }

  async checkCoordinator(kind: CoordinatorKind, key: string): Promise<CoordinatorCheck> {
    if (this.fenced) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (this.coordinatorOf(kind, key).nodeId !== this.nodeId) return ErrorCode.NOT_COORDINATOR;
    const k = heldKey(kind, key);
    if (this.held.has(k)) return ErrorCode.NONE;
    let pending = this.claiming.get(k);
    if (!pending) {
      pending = this.claimAfterRenewal(kind, key);
      this.claiming.set(k, pending);
      void pending.finally(() => this.claiming.delete(k)).catch(() => {});
    }
    let got: boolean;
    try {
      got = await pending;
    } catch (err) {
      this.opts.logger.warn('taking a coordinator lease failed', { kind, key, err: (err as Error).message });
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    }
    if (!got) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS; // the previous owner's lease runs out first
    // The view may have moved on while the claim ran.
    if (this.fenced) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (this.coordinatorOf(kind, key).nodeId !== this.nodeId) return ErrorCode.NOT_COORDINATOR;
    return this.held.has(k) ? ErrorCode.NONE : ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
  }

  /**
   * Runs `fn` on a pooled connection; one whose statement failed is discarded, not pooled again:
   * after a query_timeout it may be a dead socket (a black hole sends no RST) that would fail every
   * renewal after it, so the broker would never come back.
   */
  private async withClient<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      const out = await fn(client);
      client.release();
      return out;
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
  }

  /**
   * A claim waits for a renewal in flight: that renewal chose the keys to keep before the claim
   * began, so it would delete the new row (and the broker would think it held a key the database
   * no longer gives it). Renewals that start later keep the key: it is in `claiming` from now on.
   * A key that view moved away (applyView gave back only the keys held then) is given back, not
   * held: renewed until the next epoch, its owner would answer COORDINATOR_LOAD_IN_PROGRESS.
   */
  private async claimAfterRenewal(kind: CoordinatorKind, key: string): Promise<boolean> {
    await this.ticking?.catch(() => {});
    return this.claimNow(kind, key);
  }

  private async claimNow(kind: CoordinatorKind, key: string): Promise<boolean> {
    const got = await this.withClient((client) => claim(client, this.reg, kind, key));
    if (got && !this.fenced && this.coordinatorOf(kind, key).nodeId === this.nodeId) {
      this.held.add(heldKey(kind, key));
      this.opts.logger.info('coordinating', { kind, key, nodeId: this.nodeId });
    } else if (got) void this.giveBack(kind, key);
    return got;
  }

  onChange(listener: (view: ClusterView) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  onCoordinatorLost(listener: (kind: CoordinatorKind, key: string) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /**
   * Renews now (an epoch change was announced). Callers during a renewal share the one after it,
   * which starts after they asked, so what they wait for reflects the database as of then.
   */
  refresh(): Promise<void> {
    if (this.stopped || this.replaced || !this.reg) return Promise.resolve();
    this.next ??= (this.ticking ?? Promise.resolve()).then(() => {
      this.next = undefined;
      if (this.stopped || this.replaced) return;
      clearTimeout(this.timer);
      this.ticking = this.tick().finally(() => {
        this.ticking = undefined;
        this.schedule();
      });
      return this.ticking;
    });
    return this.next;
  }

  private schedule(): void {
    if (this.stopped || this.replaced) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), this.heartbeatMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const started = this.mono();
    // Only what was held when the renewal began is judged by its answer: a claim that completes
    // meanwhile may have committed after the renewal read the leases.
    const heldBefore = [...this.held];
    const keep = [...heldBefore, ...this.claiming.keys()];
    let result;
    try {
      result = await this.withClient((client) => renew(client, this.reg, keep));
    } catch (err) {
      this.opts.logger.warn('renewing the broker lease failed', {
        err: (err as Error).message,
        fenced: this.fenced,
      });
      if (this.fenced) this.onDeadline();
      return;
    }
    if (result.replaced) {
      this.replaced = true;
      this.opts.logger.error('another broker process registered this node id; this one stops coordinating', {
        nodeId: this.nodeId,
      });
      this.dropAll();
      this.applyView(result.view);
      return;
    }
    // A lease the database no longer has for us (it ran out while we could not renew) is lost.
    for (const k of heldBefore) if (!result.held.has(k)) this.drop(k);
    // Back from a lapse: the LISTEN connection lived through the same loss; a new one, and
    // whatever was announced meanwhile is looked at again (onReconnect).
    if (this.lapsed) this.listener?.restart();
    this.trusted(started);
    this.applyView(result.view);
  }

  /** A renewal that started at `started` succeeded: trusted until started + lease. */
  private trusted(started: number): void {
    this.deadline = started + this.leaseMs;
    this.lapseHandled = false;
    this.armFence();
  }

  private armFence(): void {
    clearTimeout(this.fenceTimer);
    // setTimeout drops the fraction of a ms: a timer may fire just before the deadline.
    this.fenceTimer = setTimeout(() => this.onDeadline(), Math.max(0, Math.ceil(this.deadline - this.mono())) + 1);
    this.fenceTimer.unref();
  }

  /** The lease ran out unrenewed: stop coordinating, and (once per lapse) tell the lapse listeners. */
  private onDeadline(): void {
    if (this.stopped) return;
    if (!this.fenced) return this.armFence();
    if (this.lapseHandled) return;
    this.lapseHandled = true;
    this.opts.logger.warn('broker lease not renewed in time: no longer coordinating', { nodeId: this.nodeId });
    this.dropAll();
    if (this.lapsed) for (const l of this.lapseListeners) l();
  }

  private applyView(view: ClusterView): void {
    if (view.epoch === this.current.epoch) return;
    this.current = view;
    // Keys that moved to another broker: unloaded here first, then their rows given back.
    for (const k of [...this.held]) {
      const [kind, key] = splitHeld(k);
      if (this.coordinatorOf(kind, key).nodeId === this.nodeId) continue;
      this.drop(k);
      void this.giveBack(kind, key);
    }
    this.opts.logger.info('cluster membership changed', {
      epoch: view.epoch,
      brokers: view.brokers.map((b) => b.nodeId),
    });
    for (const l of this.changeListeners) l(view);
  }

  private async giveBack(kind: CoordinatorKind, key: string): Promise<void> {
    // Failed: the next renewal drops it (not in `keep`), or it runs out.
    await this.withClient((client) => release(client, this.reg, kind, key)).catch(() => {});
  }

  private drop(k: string): void {
    if (!this.held.delete(k)) return;
    const [kind, key] = splitHeld(k);
    this.opts.logger.info('no longer coordinating', { kind, key, nodeId: this.nodeId });
    for (const l of this.lostListeners) l(kind, key);
  }

  private dropAll(): void {
    for (const k of [...this.held]) this.drop(k);
  }

  private onReconnect(): void {
    void this.refresh();
    for (const l of this.reconnectListeners) l();
  }

  /** Stops renewing without leaving, as a killed process would (tests: the others' takeover). */
  async abandon(): Promise<void> {
    this.replaced = true;
    clearTimeout(this.timer);
    clearTimeout(this.fenceTimer);
    await this.ticking?.catch(() => {});
    await this.listener?.stop();
    await this.pool.end().catch(() => {});
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.fenceTimer);
    this.dropAll();
    await this.ticking?.catch(() => {});
    if (this.reg && !this.replaced) {
      let timer: NodeJS.Timeout | undefined;
      const goodbye = (async () => {
        await this.withClient((client) => leave(client, this.reg));
      })().catch((err: Error) => this.opts.logger.warn('leaving the cluster failed', { err: err.message }));
      await Promise.race([goodbye, new Promise((r) => (timer = setTimeout(r, LEAVE_TIMEOUT_MS)))]);
      clearTimeout(timer);
    }
    await this.listener?.stop();
    await this.pool.end().catch(() => {});
  }
}

/** The view's formula; never one newer than this broker knows (its own row is not in the view yet). */
const placementOf = (v: number | undefined) => Math.min(v ?? PLACEMENT_VERSION, PLACEMENT_VERSION);

function splitHeld(k: string): [CoordinatorKind, string] {
  const slash = k.indexOf('/');
  return [KIND_OF_CODE[Number(k.slice(0, slash))]!, k.slice(slash + 1)];
}
