// A share-group member that goes away gives its records back at once, and its share session goes
// with it (KIP-932; Kafka 4.1's SharePartitionManager.releaseSession): closing its session, being
// fenced by the session timeout, or its connection closing (a leave heartbeat alone does not). ShareFetch does not check group
// membership itself (Kafka's neither: its errors are SHARE_SESSION_NOT_FOUND and
// INVALID_SHARE_SESSION_EPOCH), so a member gone answers SHARE_SESSION_NOT_FOUND at its next
// request and starts over with epoch 0. At most group.share.max.share.sessions sessions at once.
import { ErrorCode } from '../../../src/protocol/error-codes';
import { RecordState } from '../../../src/groups/share/share-partition';
import { batch, part, NOW_MS } from '../../storage/fixtures';
import { MEMBER_A, MEMBER_B, shareKit } from './share-test-kit';

afterEach(() => jest.useRealTimers());

async function setUp(opts: Parameters<typeof shareKit>[0] = {}) {
  const kit = shareKit(opts);
  const topic = await kit.storage.createTopic('jobs', 1, {});
  await kit.storage.storeSharePartition('g', topic.topicId, 0, { startOffset: 0, endOffset: 0, records: [] });
  await kit.storage.append([part('jobs', 0, [batch({ records: 2 })])], NOW_MS);
  await kit.join(MEMBER_A, ['jobs']);
  await kit.join(MEMBER_B, ['jobs']);
  const held = await kit.share.fetcher.handle(kit.fetch(MEMBER_A, topic.topicId, 0, { connectionId: 7 }));
  expect(held.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 }]);
  const state = await kit.share.partitions.get('g', topic, 0);
  return { ...kit, topic, state };
}

/** Until the release (not awaited by whoever triggered it) has run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

it('a member fenced by its session timeout gives its records back and loses its share session', async () => {
  jest.useFakeTimers({ now: NOW_MS, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  const { share, topic, fetch, state } = await setUp({ sessionTimeoutMs: 1_000 });
  // B heartbeats in time, A does not.
  await jest.advanceTimersByTimeAsync(600);
  await share.coordinator.heartbeat({
    groupId: 'g',
    memberId: MEMBER_B,
    memberEpoch: share.coordinator.group('g')!.members.get(MEMBER_B)!.memberEpoch,
    rackId: null,
    subscribedTopicNames: null,
    clientId: 'c',
    clientHost: '/127.0.0.1',
  });
  await jest.advanceTimersByTimeAsync(400);
  await settle();
  expect(share.coordinator.isMember('g', MEMBER_A)).toBe(false);
  expect(state.record(0)).toMatchObject({ state: RecordState.AVAILABLE, memberId: '' });
  const b = await share.fetcher.handle(fetch(MEMBER_B, topic.topicId, 0));
  expect(b.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 2 }]);
  const a = await share.fetcher.handle(fetch(MEMBER_A, topic.topicId, 1));
  expect(a.errorCode).toBe(ErrorCode.SHARE_SESSION_NOT_FOUND);
  share.close();
});

it('a member leaving keeps its session until it closes it, which gives its records back (as Kafka)', async () => {
  const { share, topic, fetch, state } = await setUp();
  await share.coordinator.heartbeat({
    groupId: 'g',
    memberId: MEMBER_A,
    memberEpoch: -1,
    rackId: null,
    subscribedTopicNames: null,
    clientId: 'c',
    clientHost: '/127.0.0.1',
  });
  await settle();
  expect(state.record(1)).toMatchObject({ state: RecordState.ACQUIRED, memberId: MEMBER_A });
  const closed = await share.fetcher.handle(fetch(MEMBER_A, topic.topicId, -1, { fetch: false }));
  expect(closed.errorCode).toBe(ErrorCode.NONE);
  expect(state.record(1)).toMatchObject({ state: RecordState.AVAILABLE });
  share.close();
});

it("a closed connection ends the share sessions opened on it and gives their members' records back", async () => {
  const { share, topic, fetch, state } = await setUp();
  share.connectionClosed(8); // another connection: nothing happens
  await settle();
  expect(state.record(0)).toMatchObject({ state: RecordState.ACQUIRED, memberId: MEMBER_A });
  share.connectionClosed(7);
  await settle();
  expect(state.record(0)).toMatchObject({ state: RecordState.AVAILABLE });
  expect((await share.fetcher.handle(fetch(MEMBER_A, topic.topicId, 1))).errorCode).toBe(
    ErrorCode.SHARE_SESSION_NOT_FOUND,
  );
  // The member starts over with a new session (it is still in the group).
  const again = await share.fetcher.handle(fetch(MEMBER_A, topic.topicId, 0));
  expect(again.partitions[0]!.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 2 }]);
  share.close();
});

it('refuses a share session past group.share.max.share.sessions with SHARE_SESSION_LIMIT_REACHED', async () => {
  const { share, topic, fetch } = await setUp({ maxShareSessions: 1 });
  const b = await share.fetcher.handle(fetch(MEMBER_B, topic.topicId, 0));
  expect(b).toMatchObject({ errorCode: ErrorCode.SHARE_SESSION_LIMIT_REACHED });
  // A's own new session replaces its old one.
  expect((await share.fetcher.handle(fetch(MEMBER_A, topic.topicId, 0))).errorCode).toBe(ErrorCode.NONE);
  share.close();
});
