// Shared set-up for the KIP-848 coordinator's unit tests: a coordinator on memory storage with
// fake time, and a heartbeat helper that speaks ConsumerGroupHeartbeat as a consumer does.
import { ConsumerGroupCoordinator } from '../../../src/groups/consumer/consumer-coordinator';
import type {
  ConsumerCoordinatorOptions,
  HeartbeatInput,
  HeartbeatResult,
} from '../../../src/groups/consumer/consumer-options';
import { silentLogger } from '../../../src/logger';
import { MemoryStorage } from '../../../src/storage/memory/memory-storage';
import { promised } from '../../../src/storage/sync-adapter';
import { FakeTimers } from '../fake-timers';

export const GROUP = 'cg';
export const SESSION_MS = 45_000;

export function consumerHarness(opts: Partial<ConsumerCoordinatorOptions> = {}, storage = new MemoryStorage()) {
  const timers = new FakeTimers();
  const coord = new ConsumerGroupCoordinator({
    storage: promised(storage),
    logger: silentLogger,
    now: timers.now,
    timers,
    topicsRefreshMs: 0,
    ...opts,
  });
  return { coord, timers, storage };
}

/** A heartbeat; `owned` as topic name -> partitions (turned into ids through storage). */
export async function heartbeat(
  h: ReturnType<typeof consumerHarness>,
  req: Partial<HeartbeatInput> & { memberId: string; memberEpoch: number },
  owned?: Record<string, number[]>,
): Promise<HeartbeatResult> {
  const topicPartitions =
    owned === undefined
      ? req.memberEpoch === 0
        ? []
        : null
      : Object.entries(owned).map(([name, partitions]) => ({ topicId: h.storage.topic(name)!.topicId, partitions }));
  return h.coord.heartbeat({
    groupId: GROUP,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: req.memberEpoch === 0 ? 30_000 : -1,
    subscribedTopicNames: null,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions,
    clientId: 'client',
    clientHost: '/127.0.0.1',
    ...req,
  });
}

/** The answer's assignment as "topic-partition" strings (null: no assignment in the answer). */
export function named(h: ReturnType<typeof consumerHarness>, r: HeartbeatResult): string[] | null {
  if (!r.assignment) return null;
  return r.assignment.topicPartitions
    .flatMap((tp) => tp.partitions.map((p) => `${h.storage.topicById(tp.topicId)!.name}-${p}`))
    .sort();
}

/** "topic-partition" strings back to the owned map heartbeat() takes. */
export function owned(list: readonly string[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const tp of list) {
    const i = tp.lastIndexOf('-');
    (out[tp.slice(0, i)] ??= []).push(Number(tp.slice(i + 1)));
  }
  return out;
}

/**
 * A ConsumerGroupHeartbeat as a consumer of one topic sends it: subscribing (`names`) with a
 * rebalance timeout, reporting `owned` partitions of the topic `topicId()` names (null: not reported).
 */
export function heartbeatInput(
  groupId: string,
  memberId: string,
  memberEpoch: number,
  topicId: () => string,
  owned: number[] | null,
  names: string[] | null,
): HeartbeatInput {
  return {
    groupId,
    memberId,
    memberEpoch,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: memberEpoch === 0 || names !== null ? 30_000 : -1,
    subscribedTopicNames: names,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: owned === null ? null : owned.length === 0 ? [] : [{ topicId: topicId(), partitions: owned }],
    clientId: 'c',
    clientHost: '/127.0.0.1',
  };
}
