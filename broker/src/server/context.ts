// What a handler sees: the broker's services, and the request it is answering.
import type { ProduceOrder } from './produce-order';
import type { Cluster } from '../cluster/cluster';
import type { ClusterIdentity, Storage } from '../storage/storage';
import type { AppendQueue } from './append-queue';
import type { BrokerConfig, Endpoint } from './config';
import type { FetchWaiters } from './fetch-waiters';
import type { Logger } from '../logger';
import type { GroupCoordinator } from '../groups/coordinator';
import type { ShareGroups } from '../groups/share/share-groups';
import type { TransactionCoordinator } from '../transactions/coordinator';
import type { DiskSpace } from '../storage/disk-space';
import type { Authorizer } from './authorizer';
import type { BrokerQuotas } from './quotas/broker-quotas';
import type { Session } from './session';
import type { SaslAuthenticator } from './sasl/sasl-authenticator';
import type { ResolvedListener } from './listeners';
import type { BrokerMetrics } from './metrics/broker-metrics';
import type { ResponseHold, ResponseMemory } from './response-memory';
import type { FeatureLevels } from './features';

export interface BrokerContext {
  config: BrokerConfig;
  storage: Storage;
  identity: ClusterIdentity;
  /** The first listener's advertised address; handlers answer with advertisedEndpoint(ctx). */
  advertised: Endpoint;
  /** Every listener with its name and advertised address (listeners.ts). */
  listeners: readonly ResolvedListener[];
  logger: Logger;
  appendQueue: AppendQueue;
  fetchWaiters: FetchWaiters;
  /** Fetched record bytes held across connections (MINNOW_FETCH_RESPONSE_MEMORY_BYTES; response-memory.ts). */
  responseMemory?: ResponseMemory;
  groups: GroupCoordinator;
  /** Share groups (KIP-932): membership, share-partition delivery state, share sessions. */
  shareGroups: ShareGroups;
  /** The transaction coordinator (src/transactions): every transactional id is coordinated here. */
  transactions: TransactionCoordinator;
  /** Free space of the database's file system (sqlite:// only): the produce floor, the reserve. */
  diskSpace: DiskSpace | undefined;
  /** ACLs, SUPER_USERS and ALLOW_EVERYONE_IF_NO_ACL_FOUND: what each handler checks (authorizer.ts). */
  authorizer: Authorizer;
  /** Client quotas (produce/fetch bytes, request time) and the per-IP connection rate: server/quotas. */
  quotas: BrokerQuotas;
  /** Counters for GET /metrics (server/metrics); undefined while MINNOW_METRICS_LISTENER is unset. */
  metrics?: BrokerMetrics;
  /** The brokers sharing the storage (src/cluster); undefined: this one alone (a hand-built context). */
  cluster?: Cluster;
  /** The feature levels ApiVersions reports (features.ts); undefined (a hand-built context): the defaults. */
  features?: FeatureLevels;
  now(): number;
}

export interface RequestContext {
  broker: BrokerContext;
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  connectionId: number;
  /** The client's address as Kafka reports it in DescribeGroups, e.g. "/127.0.0.1". */
  clientHost: string;
  /** The connection's principal and listener (session.ts); the same object for every request on it. */
  session: Session;
  /** The connection's SASL exchange (sasl/sasl-authenticator.ts); undefined on a listener without SASL. */
  sasl?: SaslAuthenticator;
  /** The connection's Produce order (produce-order.ts); undefined outside a connection (tests). */
  produceOrder?: ProduceOrder;
  /**
   * A Fetch's or ShareFetch's share of the broker's ResponseMemory, released by the connection once
   * the response is written; undefined for other APIs and outside a connection (no bound then).
   */
  responseHold?: ResponseHold;
  /**
   * Set by CreateTopics / CreatePartitions / DeleteTopics over their controller_mutation_rate
   * (KIP-599): the connection is muted this long after the answer, as for the other quotas.
   */
  mutationThrottleMs?: number;
}

/**
 * One Kafka API. `minVersion`..`maxVersion` is what ApiVersions advertises; any other version of
 * this key closes the connection (as Kafka does). `handle` returns the response body, or null when
 * no response is due (Produce with acks=0). Kafka errors go into the body as error codes.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the handler table holds every API's own request/response types
export interface ApiHandler<Req = any, Res = any> {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
  handle(ctx: RequestContext, req: Req): Res | null | Promise<Res | null>;
}

/**
 * The address to tell this client: its listener's advertised one (Kafka answers Metadata and
 * FindCoordinator with the endpoints of the listener the request came in on).
 */
export function advertisedEndpoint(ctx: RequestContext): Endpoint {
  const name = ctx.session?.listener.name;
  return ctx.broker.listeners?.find((l) => l.name === name)?.advertised ?? ctx.broker.advertised;
}
