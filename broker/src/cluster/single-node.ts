// One broker on its own storage (sqlite://, memory://): it leads every partition and coordinates
// every key, as minnow always did.
import { ErrorCode } from '../protocol/error-codes';
import type { BrokerNode, Cluster, ClusterView, CoordinatorCheck, NamedEndpoint } from './cluster';

export class SingleNode implements Cluster {
  readonly shared = false;
  private readonly current: ClusterView;

  constructor(
    readonly nodeId: number,
    endpoints: readonly NamedEndpoint[],
    rack: string | null = null,
  ) {
    this.current = { epoch: 0, brokers: [{ nodeId, rack, endpoints }] };
  }

  view(): ClusterView {
    return this.current;
  }

  leaderOf(): number {
    return this.nodeId;
  }

  coordinatorOf(): BrokerNode {
    return this.current.brokers[0]!;
  }

  checkCoordinator(): Promise<CoordinatorCheck> {
    return Promise.resolve(ErrorCode.NONE);
  }

  onChange(): () => void {
    return () => {};
  }

  onCoordinatorLost(): () => void {
    return () => {};
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }
}
