// The topics a consumer group's subscriptions resolve against: a snapshot of the broker's topics
// (name, id, partition count), read from storage at most once per refresh interval, so a heartbeat
// does not list every topic. A topic created, deleted or given more partitions shows up in the
// next snapshot, and a group whose subscribed topics changed bumps its epoch (new assignment).
import type { TopicInfo } from '../../storage/storage';

export interface TopicFacts {
  name: string;
  topicId: string;
  partitionCount: number;
}

export interface TopicsView {
  /** Changes whenever the snapshot's content does (groups compare it to skip recomputing). */
  readonly version: number;
  readonly byName: ReadonlyMap<string, TopicFacts>;
  readonly byId: ReadonlyMap<string, TopicFacts>;
}

export const EMPTY_TOPICS: TopicsView = { version: 0, byName: new Map(), byId: new Map() };

/** A view of `topics`; the same version as `previous` when nothing changed. */
export function topicsView(topics: readonly TopicInfo[], previous: TopicsView): TopicsView {
  const byName = new Map<string, TopicFacts>();
  for (const t of topics) byName.set(t.name, { name: t.name, topicId: t.topicId, partitionCount: t.partitionCount });
  if (sameTopics(byName, previous.byName)) return previous;
  return {
    version: previous.version + 1,
    byName,
    byId: new Map([...byName.values()].map((t) => [t.topicId, t] as const)),
  };
}

export function sameTopics(a: ReadonlyMap<string, TopicFacts>, b: ReadonlyMap<string, TopicFacts>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, t] of a) {
    const o = b.get(name);
    if (!o || o.topicId !== t.topicId || o.partitionCount !== t.partitionCount) return false;
  }
  return true;
}
