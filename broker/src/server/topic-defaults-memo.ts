// The broker-level topic defaults as the produce path reads them (issue 33: per-request garbage).
import type { Storage } from '../storage/storage';
import { brokerTopicDefaults } from './broker-configs';

/**
 * brokerTopicDefaults as the produce path reads them: on every Produce request. Each read made
 * ~1.8 KB of garbage (two storage calls, their copies, Promise.all): a tenth of the seed load's
 * V8 allocation per request, which keeps V8's major GC busy (issue 33). Kept for MEMO_MS per
 * storage; this broker's own changes drop it (forgetBrokerTopicDefaults, alter-configs.ts), another
 * broker's (postgres://) show within MEMO_MS more than the engine's own 1 s cache.
 */
const topicDefaultsMemo = new WeakMap<
  Storage,
  { nodeId: number; atMs: number; value: Readonly<Record<string, string>> }
>();
const MEMO_MS = 1000;

/** The memo when it is fresh, else undefined (then cachedBrokerTopicDefaults reads and keeps them). */
export function memoizedBrokerTopicDefaults(
  storage: Storage,
  nodeId: number,
  nowMs = Date.now(),
): Readonly<Record<string, string>> | undefined {
  const hit = topicDefaultsMemo.get(storage);
  return hit && hit.nodeId === nodeId && nowMs - hit.atMs < MEMO_MS && nowMs >= hit.atMs ? hit.value : undefined;
}

export async function cachedBrokerTopicDefaults(
  storage: Storage,
  nodeId: number,
  nowMs = Date.now(),
): Promise<Readonly<Record<string, string>>> {
  const hit = memoizedBrokerTopicDefaults(storage, nodeId, nowMs);
  if (hit) return hit;
  const value = Object.freeze(await brokerTopicDefaults(storage, nodeId));
  topicDefaultsMemo.set(storage, { nodeId, atMs: nowMs, value });
  return value;
}

/** Drops the produce path's memo: called once this broker has changed its broker configs. */
export function forgetBrokerTopicDefaults(storage: Storage): void {
  topicDefaultsMemo.delete(storage);
}
