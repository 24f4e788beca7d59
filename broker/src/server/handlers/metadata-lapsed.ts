// Metadata from a broker cut off from the database (its cluster lease lapsed, src/cluster): it
// cannot read the topics, and it should not be where clients go. It answers from the topics it last
// answered Metadata with, listing the OTHER brokers of its view and placing the leaders over them
// (rendezvous placement: exactly where the others will place them once they drop this broker).
// So clients move on when only this broker lost the database, and when every broker did (an RDS
// Multi-AZ failover) no connection is closed: librdkafka would report "all brokers down" and kcat
// exit. Requests that still come here get retriable errors. A topic it never answered for gets
// LEADER_NOT_AVAILABLE (retriable). Alone in its view it answers as before (error-answers/).
import { placedByPlacement } from '../../cluster/placement';
import { ErrorCode } from '../../protocol/error-codes';
import type { MetadataRequest, MetadataResponse, MetadataResponseTopic } from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import type { TopicInfo } from '../../storage/storage';
import { clusterOf, nodeEndpoint } from '../cluster-answers';
import type { BrokerContext, RequestContext } from '../context';
import { isInternalTopic } from '../topic-names';

const OMITTED = -2147483648;

/** name -> topic, as this broker last answered Metadata (bounded by the partition limits). */
const lastTopics = new WeakMap<BrokerContext, Map<string, TopicInfo>>();

/** Remembers topics a Metadata answer read (`all`: the whole list, replacing what was known). */
export function rememberTopics(broker: BrokerContext, topics: readonly TopicInfo[], all: boolean): void {
  let known = lastTopics.get(broker);
  if (!known || all) lastTopics.set(broker, (known = new Map()));
  for (const t of topics) known.set(t.name, t);
}

/** The answer while lapsed, or undefined when no other broker is in the view (answered as before). */
export function metadataWhileLapsed(
  ctx: RequestContext,
  req: MetadataRequest,
  all: boolean,
  describable: (name: string) => boolean,
): MetadataResponse | undefined {
  const self = ctx.broker.identity.nodeId;
  const view = clusterOf(ctx.broker).view();
  const others = view.brokers.filter((n) => n.nodeId !== self);
  if (others.length === 0) return undefined;
  const known = lastTopics.get(ctx.broker) ?? new Map<string, TopicInfo>();
  const entry = (t: TopicInfo): MetadataResponseTopic => ({
    errorCode: ErrorCode.NONE,
    name: t.name,
    topicId: t.topicId,
    isInternal: isInternalTopic(t.name),
    partitions: Array.from({ length: t.partitionCount }, (_, p) => {
      const leader = placedByPlacement(others, t.name, p, view.placement);
      return {
        errorCode: ErrorCode.NONE,
        partitionIndex: p,
        leaderId: leader,
        leaderEpoch: view.epoch,
        replicaNodes: [leader],
        isrNodes: [leader],
        offlineReplicas: [],
      };
    }),
    topicAuthorizedOperations: OMITTED,
  });
  const unknown = (name: string | null, topicId = ZERO_UUID): MetadataResponseTopic => ({
    errorCode: ErrorCode.LEADER_NOT_AVAILABLE,
    name,
    topicId,
    isInternal: isInternalTopic(name),
    partitions: [],
    topicAuthorizedOperations: OMITTED,
  });
  const byId = (id: string) => [...known.values()].find((t) => t.topicId === id);
  const topics = all
    ? [...known.values()].filter((t) => describable(t.name)).map(entry)
    : req.topics!.map((rt) => {
        const hasId = rt.topicId !== undefined && rt.topicId !== ZERO_UUID;
        const t = hasId ? byId(rt.topicId!) : rt.name ? known.get(rt.name) : undefined;
        if (!t || !describable(t.name)) return unknown(hasId ? null : (rt.name ?? null), rt.topicId ?? ZERO_UUID);
        return entry(t);
      });
  return {
    throttleTimeMs: 0,
    brokers: others.map((n) => ({ nodeId: n.nodeId, ...nodeEndpoint(ctx, n), rack: n.rack })),
    clusterId: ctx.broker.identity.clusterId,
    controllerId: others[0]!.nodeId,
    topics,
    clusterAuthorizedOperations: OMITTED,
  };
}
