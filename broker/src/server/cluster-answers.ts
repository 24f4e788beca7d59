// What Metadata, DescribeCluster and FindCoordinator say about the brokers (src/cluster): the live
// ones with the address of the listener the request came on, each partition's leader, and the
// leader epoch (the cluster epoch, KIP-320: it only grows, so clients never take an older answer
// for a newer one). One broker (SingleNode) answers as minnow always did: itself, epoch 0.
import { type BrokerNode, type Cluster, type CoordinatorKind, endpointOf } from '../cluster/cluster';
import { SingleNode } from '../cluster/single-node';
import { ErrorCode } from '../protocol/error-codes';
import { advertisedEndpoint, type BrokerContext, type RequestContext } from './context';
import type { Endpoint } from './config';

const alone = new WeakMap<BrokerContext, Cluster>();

/** The broker's cluster; a context built without one (unit tests) is a broker alone. */
export function clusterOf(broker: BrokerContext): Cluster {
  if (broker.cluster) return broker.cluster;
  let c = alone.get(broker);
  if (!c) alone.set(broker, (c = new SingleNode(broker.identity.nodeId, [])));
  return c;
}

/** A broker's address for this request: ours exactly as advertised, the others' from the database. */
export function nodeEndpoint(ctx: RequestContext, node: BrokerNode): Endpoint {
  if (node.nodeId === ctx.broker.identity.nodeId) return advertisedEndpoint(ctx);
  return endpointOf(node, ctx.session?.listener.name);
}

/** The live brokers for Metadata/DescribeCluster; never without this broker (it answers). */
export function liveBrokers(
  ctx: RequestContext,
): { nodeId: number; host: string; port: number; rack: string | null }[] {
  const self = ctx.broker.identity.nodeId;
  const nodes = clusterOf(ctx.broker).view().brokers;
  const out = nodes.map((n) => ({ nodeId: n.nodeId, ...nodeEndpoint(ctx, n), rack: n.rack }));
  if (!nodes.some((n) => n.nodeId === self)) out.push({ nodeId: self, ...advertisedEndpoint(ctx), rack: null });
  return out;
}

/** Kafka's controller id in Metadata/DescribeCluster: any live broker; the lowest id here. */
export function controllerId(broker: BrokerContext): number {
  return clusterOf(broker).view().brokers[0]?.nodeId ?? broker.identity.nodeId;
}

/** One partition's Metadata entry: its leader by placement, the only replica (the database replicates). */
export function partitionEntry(broker: BrokerContext, topic: string, partition: number) {
  const leader = clusterOf(broker).leaderOf(topic, partition);
  return {
    errorCode: ErrorCode.NONE,
    partitionIndex: partition,
    leaderId: leader,
    leaderEpoch: clusterOf(broker).view().epoch,
    replicaNodes: [leader],
    isrNodes: [leader],
    offlineReplicas: [],
  };
}

/** FindCoordinator's answer for a key: the broker placement names (the one that takes the lease). */
export function coordinatorEndpoint(
  ctx: RequestContext,
  kind: CoordinatorKind,
): (key: string) => { nodeId: number; host: string; port: number } {
  return (key) => {
    const node = clusterOf(ctx.broker).coordinatorOf(kind, key);
    return { nodeId: node.nodeId, ...nodeEndpoint(ctx, node) };
  };
}

/** True when this broker coordinates the key by placement (ListGroups/ListTransactions list theirs only). */
export function placedHere(broker: BrokerContext, kind: CoordinatorKind, key: string): boolean {
  return clusterOf(broker).coordinatorOf(kind, key).nodeId === broker.identity.nodeId;
}

/**
 * NONE when this broker may act now as the coordinator of the group or transactional id (it holds
 * the key's lease, src/cluster); else the error to answer: NOT_COORDINATOR (FindCoordinator names
 * another broker), COORDINATOR_LOAD_IN_PROGRESS (the previous owner's lease runs out first) or
 * COORDINATOR_NOT_AVAILABLE (the database is out of reach). One broker alone: always NONE.
 * A group passing the gate for the first time since start (or since it came back to this broker)
 * gets its stored membership loaded first (groups/group-sessions.ts loadGroup), as Kafka loads a
 * group when it becomes its coordinator.
 */
export async function coordinatorGate(ctx: RequestContext, kind: CoordinatorKind, key: string): Promise<number> {
  const check = await clusterOf(ctx.broker).checkCoordinator(kind, key);
  if (check !== ErrorCode.NONE || kind !== 'group') return check;
  return ctx.broker.groups.loadGroup(key);
}
