// What the share-group unit tests share: a ShareGroups on memory storage whose waiters resolve
// only when notified (a long-poll ends by a wake-up, never by its timeout), and request builders.
import { ShareGroups, type ShareGroupsOptions } from '../../../src/groups/share/share-groups';
import type { ShareFetchInput } from '../../../src/groups/share/share-fetcher';
import { MemoryStorage } from '../../../src/storage/memory/memory-storage';
import { promised } from '../../../src/storage/sync-adapter';
import type { AsyncStorage } from '../../../src/storage/storage';
import { silentLogger } from '../../../src/logger';

export const MEMBER_A = 'memberAAAAAAAAAAAAAAAAA';
export const MEMBER_B = 'memberBBBBBBBBBBBBBBBBB';

/** Waiters that end a wait only on notify (so a test sees who woke it). */
export function wakeOnlyWaiters() {
  const waiting = new Map<string, Array<() => void>>();
  const notified: string[] = [];
  return {
    notified,
    waiting: () => [...waiting.values()].reduce((n, l) => n + l.length, 0),
    wait(parts: ReadonlyArray<{ topic: string; partition: number }>): Promise<void> {
      return new Promise((resolve) => {
        for (const p of parts) {
          const k = `${p.topic}:${p.partition}`;
          waiting.set(k, [...(waiting.get(k) ?? []), resolve]);
        }
      });
    },
    notify(topic: string, partition: number): void {
      const k = `${topic}:${partition}`;
      notified.push(k);
      for (const r of waiting.get(k) ?? []) r();
      waiting.delete(k);
    },
  };
}

export function shareKit(
  opts: Partial<ShareGroupsOptions> = {},
  storage: AsyncStorage = promised(new MemoryStorage()),
) {
  const waiters = wakeOnlyWaiters();
  const share = new ShareGroups({
    storage,
    logger: silentLogger,
    now: () => Date.now(),
    fetchWaiters: waiters,
    ...opts,
  });
  /** Joins `memberId` to group `g` subscribed to `topics`; returns its epoch. */
  const join = async (memberId: string, topics: string[], groupId = 'g') => {
    const r = await share.coordinator.heartbeat({
      groupId,
      memberId,
      memberEpoch: 0,
      rackId: null,
      subscribedTopicNames: topics,
      clientId: 'c',
      clientHost: '/127.0.0.1',
    });
    if (r.errorCode !== 0) throw new Error(`join ${memberId}: error ${r.errorCode} ${r.errorMessage}`);
    return r.memberEpoch;
  };
  const fetch = (
    memberId: string,
    topicId: string,
    epoch: number,
    more: Partial<ShareFetchInput> = {},
  ): ShareFetchInput => ({
    groupId: 'g',
    memberId,
    shareSessionEpoch: epoch,
    maxWaitMs: 0,
    maxBytes: 1 << 20,
    maxRecords: 100,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
    forgotten: [],
    mayRead: () => true,
    fetch: true,
    ...more,
  });
  return { share, storage, waiters, join, fetch };
}
