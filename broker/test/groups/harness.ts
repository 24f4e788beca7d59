// Shared set-up for the coordinator unit tests: a coordinator on memory storage with fake time,
// and helpers that speak its API the way a consumer would.
import { GroupCoordinator, JoinGroupInput } from '../../src/groups/coordinator';
import { encodeAssignment, encodeSubscription } from '../../src/protocol/consumer-protocol';
import type { JoinResult, SyncResult } from '../../src/groups/group';
import { silentLogger } from '../../src/logger';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import type { SyncStorage } from '../../src/storage/storage';
import { promised } from '../../src/storage/sync-adapter';
import { FakeTimers } from './fake-timers';

export const GROUP = 'g1';
export const SESSION_MS = 10_000;
export const REBALANCE_MS = 30_000;

/** `storage`: the engine itself (tests inspect it synchronously); the coordinator gets it as AsyncStorage. */
export function harness(opts: { initialRebalanceDelayMs?: number; storage?: SyncStorage } = {}) {
  const timers = new FakeTimers();
  const storage = opts.storage ?? new MemoryStorage();
  const coord = new GroupCoordinator({
    storage: promised(storage),
    logger: silentLogger,
    now: timers.now,
    timers,
    initialRebalanceDelayMs: opts.initialRebalanceDelayMs ?? 0,
  });
  return { coord, timers, storage };
}

/** Lets resolved promises run their callbacks (no time passes on the fake clock). */
export const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise whose state can be read synchronously (after flush()). */
export interface Tracked<T> {
  promise: Promise<T>;
  settled: boolean;
  value: T | undefined;
}
export function track<T>(promise: Promise<T>): Tracked<T> {
  const t: Tracked<T> = { promise, settled: false, value: undefined };
  promise.then((v) => {
    t.settled = true;
    t.value = v;
  });
  return t;
}

export const subscription = (topics: string[]) => encodeSubscription({ topics, userData: null });

export function joinInput(over: Partial<JoinGroupInput> = {}): JoinGroupInput {
  return {
    groupId: GROUP,
    memberId: '',
    groupInstanceId: null,
    requireKnownMemberId: false,
    clientId: 'client',
    clientHost: '/127.0.0.1',
    sessionTimeoutMs: SESSION_MS,
    rebalanceTimeoutMs: REBALANCE_MS,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription(['t']) }],
    ...over,
  };
}

export function join(coord: GroupCoordinator, over: Partial<JoinGroupInput> = {}): Tracked<JoinResult> {
  return track(coord.joinGroup(joinInput(over)));
}

export function sync(
  coord: GroupCoordinator,
  memberId: string,
  generationId: number,
  assignments: { memberId: string; assignment: Buffer }[] = [],
  over: { groupInstanceId?: string | null; protocolType?: string | null; protocolName?: string | null } = {},
): Tracked<SyncResult> {
  return track(
    coord.syncGroup({
      groupId: GROUP,
      generationId,
      memberId,
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments,
      ...over,
    }),
  );
}

export const heartbeat = (
  coord: GroupCoordinator,
  memberId: string,
  generationId: number,
  groupInstanceId: string | null = null,
) => coord.heartbeat({ groupId: GROUP, generationId, memberId, groupInstanceId });

export const assignmentOf = (topic: string, partitions: number[]) =>
  encodeAssignment({ assignedPartitions: [{ topic, partitions }], userData: null });

/** Joins a single dynamic member and completes its sync: the group is Stable at generation 1. */
export async function stableSingle(coord: GroupCoordinator): Promise<{ memberId: string; generationId: number }> {
  const j = join(coord);
  await flush();
  const r = j.value!;
  const s = sync(coord, r.memberId, r.generationId!, [{ memberId: r.memberId, assignment: assignmentOf('t', [0]) }]);
  await flush();
  if (s.value?.errorCode !== 0) throw new Error(`sync failed: ${s.value?.errorCode}`);
  return { memberId: r.memberId, generationId: r.generationId! };
}

/** `a` (stableSingle's, the leader) and a second member `bId`, Stable at generation 2, `a` assigned nothing. */
export async function stablePair(coord: GroupCoordinator): Promise<{ a: { memberId: string }; bId: string }> {
  const a = await stableSingle(coord);
  const b = join(coord, { clientId: 'b' });
  join(coord, { memberId: a.memberId });
  await flush();
  const bId = b.value!.memberId;
  sync(coord, bId, 2);
  sync(coord, a.memberId, 2, []);
  await flush();
  return { a, bId };
}
