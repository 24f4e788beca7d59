// A consumer group's state is stored (the group rows classic groups use) and loaded by the next
// coordinator on the same storage: members carry on with their ids, epochs and partitions, and the
// group does not move to a new epoch. Deleting or converting the group deletes the stored state.
import { GroupCoordinator } from '../../../src/groups/coordinator';
import { silentLogger } from '../../../src/logger';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { MemoryStorage } from '../../../src/storage/memory/memory-storage';
import { promised } from '../../../src/storage/sync-adapter';
import { FakeTimers } from '../fake-timers';
import { GROUP, heartbeatInput } from './consumer-harness';

function broker(storage: MemoryStorage) {
  const timers = new FakeTimers();
  const groups = new GroupCoordinator({
    storage: promised(storage),
    logger: silentLogger,
    now: timers.now,
    timers,
    initialRebalanceDelayMs: 0,
    consumer: { topicsRefreshMs: 0 },
  });
  const hb = (memberId: string, memberEpoch: number, owned: number[] | null, names: string[] | null = null) =>
    groups.consumer.heartbeat(
      heartbeatInput(GROUP, memberId, memberEpoch, () => storage.topic('t')!.topicId, owned, names),
    );
  return { groups, timers, hb };
}

const partitions = (r: Awaited<ReturnType<ReturnType<typeof broker>['hb']>>) =>
  r.assignment?.topicPartitions.flatMap((tp) => tp.partitions).sort() ?? null;

it('loads a reconciled group after a restart: same members, epochs and partitions, no new epoch', async () => {
  const storage = new MemoryStorage();
  storage.createTopic('t', 4, {});
  const first = broker(storage);
  await first.hb('m1', 0, [], ['t']);
  await first.hb('m2', 0, [], ['t']);
  const kept = partitions(await first.hb('m1', 1, [0, 1, 2, 3]))!;
  await first.hb('m1', 1, kept);
  const m2 = partitions(await first.hb('m2', 2, []))!;
  const before = first.groups.consumer.group(GROUP)!;
  expect(before.state()).toBe('Stable');
  expect(before.groupEpoch).toBe(2);
  await first.groups.writesSettled();
  first.groups.close();

  const second = broker(storage);
  expect(second.groups.consumer.group(GROUP)).toBeUndefined();
  expect(await second.groups.loadGroup(GROUP)).toBe(ErrorCode.NONE);
  const loaded = second.groups.consumer.group(GROUP)!;
  expect({ epoch: loaded.groupEpoch, target: loaded.assignmentEpoch, state: loaded.state() }).toEqual({
    epoch: 2,
    target: 2,
    state: 'Stable',
  });
  // Both heartbeat on at epoch 2 with what they own: nothing changes, nothing is reassigned.
  expect(await second.hb('m1', 2, kept)).toMatchObject({ errorCode: 0, memberEpoch: 2 });
  expect(await second.hb('m2', 2, m2)).toMatchObject({ errorCode: 0, memberEpoch: 2 });
  expect(loaded.groupEpoch).toBe(2);
  // A full heartbeat shows the same partitions.
  expect(partitions(await second.hb('m2', 2, m2, ['t']))).toEqual(m2);
  // The loaded members' sessions run: one that never comes back is removed.
  second.timers.advance(45_000);
  expect(loaded.size).toBe(0);
  second.groups.close();
});

it('deletes the stored state with the group (DeleteGroups), and refuses a group with members', async () => {
  const storage = new MemoryStorage();
  storage.createTopic('t', 1, {});
  const b = broker(storage);
  await b.hb('m1', 0, [], ['t']);
  expect(await b.groups.deleteGroups([GROUP])).toEqual([{ groupId: GROUP, errorCode: ErrorCode.NON_EMPTY_GROUP }]);
  await b.hb('m1', -1, null);
  expect(await b.groups.deleteGroups([GROUP])).toEqual([{ groupId: GROUP, errorCode: ErrorCode.NONE }]);
  await b.groups.writesSettled();
  expect(storage.groupMetadata(GROUP)).toBeUndefined();
  b.groups.close();
});

it('keeps one group-id space: malformed classic joins are refused by a live consumer group; an empty one is taken over', async () => {
  const storage = new MemoryStorage();
  storage.createTopic('t', 1, {});
  const b = broker(storage);
  await b.hb('m1', 0, [], ['t']);
  const join = () =>
    b.groups.joinGroup({
      groupId: GROUP,
      memberId: '',
      groupInstanceId: null,
      requireKnownMemberId: false,
      clientId: 'c',
      clientHost: '/127.0.0.1',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    });
  // Served by the consumer group (classic-members.ts), which needs a consumer protocol subscription.
  expect((await join()).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  await b.hb('m1', -1, null);
  expect((await join()).errorCode).toBe(ErrorCode.NONE);
  expect(b.groups.consumer.group(GROUP)).toBeUndefined();
  // Now a classic group with a member whose metadata is no subscription: it cannot be upgraded
  // (conversion.test.ts upgrades real ones), so a consumer-protocol member is told it is not a consumer group.
  expect(await b.hb('m2', 0, [], ['t'])).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
  b.groups.close();
});

it('writes a join storm once: heartbeats handled in one event-loop turn share one write of the group', async () => {
  // Each write stores the whole group (every member row), so one per heartbeat made forming a
  // 1,000-member group cost ~46 s of CPU, most of it rewriting the group (bench/group-heartbeats.bench.ts).
  const storage = new MemoryStorage();
  storage.createTopic('t', 20, {});
  const b = broker(storage);
  const writes = jest.spyOn(storage, 'storeGroupMetadata');
  // Each join in its own macrotask, as requests read from several sockets in one poll phase are.
  const answers = await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) =>
        new Promise<Awaited<ReturnType<typeof b.hb>>>((resolve) =>
          setTimeout(() => resolve(b.hb(`m${i}`, 0, [], ['t'])), 0),
        ),
    ),
  );
  await b.groups.writesSettled();
  expect(answers.map((a) => a.errorCode)).toEqual(new Array(20).fill(ErrorCode.NONE));
  expect(writes.mock.calls.length).toBeLessThanOrEqual(2);
  // What was written is the group after the last join.
  expect(storage.groupMetadata(GROUP)!.members).toHaveLength(20);
  expect(storage.groupMetadata(GROUP)!.generationId).toBe(20);
  b.groups.close();
});
