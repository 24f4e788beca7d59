// What the server asks about the brokers sharing its storage: who it is, who is alive, who leads
// a partition and who coordinates a group or transactional id (docs/postgres.md "Several
// brokers"). SingleNode answers for sqlite:// and memory:// (one broker does everything);
// PostgresCluster for postgres://, from leases in the database.

import { StorageError } from '../storage/storage';

/**
 * What every storage call of a broker whose lease lapsed fails with (server/cluster-setup.ts
 * fenceStorage): the database is out of reach from this broker, maybe not from the others.
 */
export class LeaseLapsedError extends StorageError {
  constructor() {
    super('this broker could not renew its cluster lease in time (PostgreSQL out of reach)', { code: '08006' });
  }
}

/** A live broker as clients are told of it: one advertised address per listener name. */
export interface BrokerNode {
  nodeId: number;
  rack: string | null;
  /** Listener name -> advertised address (Kafka answers with the listener the request came on). */
  endpoints: readonly NamedEndpoint[];
}

/** A host and port, as server/config's Endpoint (structurally the same). */
export interface Endpoint {
  host: string;
  port: number;
}

export interface NamedEndpoint extends Endpoint {
  name: string;
}

export type CoordinatorKind = 'group' | 'transaction';

/** A Kafka error code: NONE (0) when this broker may act as the coordinator. */
export type CoordinatorCheck = number;

export interface ClusterView {
  /** Bumped on every change of the live set; the leader epoch in Metadata (KIP-320). */
  epoch: number;
  /** Sorted by node id. */
  brokers: readonly BrokerNode[];
  /** The placement formula (cluster/placement.ts) every live broker knows; absent: this broker's. */
  placement?: number;
}

export interface Cluster {
  readonly nodeId: number;
  /** The last view read from the database (SingleNode: this broker alone, epoch 0). */
  view(): ClusterView;
  /** The node id Metadata names as the partition's leader (every broker serves every partition). */
  leaderOf(topic: string, partition: number): number;
  /** The broker a FindCoordinator for this key names. */
  coordinatorOf(kind: CoordinatorKind, key: string): BrokerNode;
  /**
   * NONE when this broker holds the key's coordinator lease (taking it when it is the key's owner
   * and the lease is free); NOT_COORDINATOR when another broker owns it; COORDINATOR_LOAD_IN_PROGRESS
   * while the previous owner's lease runs out; COORDINATOR_NOT_AVAILABLE when the database is not
   * reachable or this broker's own lease lapsed (self-fenced).
   */
  checkCoordinator(kind: CoordinatorKind, key: string): Promise<CoordinatorCheck>;
  /** Called after the live set changed (a new epoch). Returns the unsubscribe. */
  onChange(listener: (view: ClusterView) => void): () => void;
  /**
   * Called when this broker gave up coordinating a key (it moved to another broker, or this
   * broker fenced itself): the coordinator drops that key's in-memory state before the lease row
   * is released. Returns the unsubscribe.
   */
  onCoordinatorLost(listener: (kind: CoordinatorKind, key: string) => void): () => void;
  /** Several brokers share the storage: transactional timers and such run on the owner only. */
  readonly shared: boolean;
  stop(): Promise<void>;
}

/** The endpoint of `node` on `listener`, or its first one (a broker configured differently). */
export function endpointOf(node: BrokerNode, listener: string | undefined): Endpoint {
  const e = node.endpoints.find((x) => x.name === listener) ?? node.endpoints[0];
  return e ? { host: e.host, port: e.port } : { host: '', port: -1 };
}
