// OffsetCommit and OffsetFetch against a KIP-848 consumer group (Kafka's
// ConsumerGroup.validateOffsetCommit / validateOffsetFetch): members commit with their current
// member epoch (STALE_MEMBER_EPOCH otherwise) and OffsetCommit v9+; classic members inside the group
// with their generation (ILLEGAL_GENERATION); without a member only while the group is empty. The
// compat scenario consumer-group-heartbeat compares the same answers with Kafka 4.1.1.
import { offsetCommitError, offsetFetchError } from '../../../src/groups/consumer/consumer-admin';
import { ConsumerGroup } from '../../../src/groups/consumer/consumer-group';
import { newMember } from '../../../src/groups/consumer/member';
import { ErrorCode } from '../../../src/protocol/error-codes';

function group(): ConsumerGroup {
  const g = new ConsumerGroup('g');
  g.updateMember({ ...newMember('m'), memberEpoch: 5, previousMemberEpoch: 4 });
  g.updateMember({ ...newMember('c'), memberEpoch: 5, classic: { sessionTimeoutMs: 10_000, protocols: [] } });
  return g;
}

it('a member commits with its current epoch; an older one is STALE_MEMBER_EPOCH, v8 unsupported', () => {
  const g = group();
  expect(offsetCommitError(g, 'm', 5, 9, false)).toBe(ErrorCode.NONE);
  expect(offsetCommitError(g, 'm', 4, 9, false)).toBe(ErrorCode.STALE_MEMBER_EPOCH);
  expect(offsetCommitError(g, 'm', 5, 8, false)).toBe(ErrorCode.UNSUPPORTED_VERSION);
  expect(offsetCommitError(g, 'm', 5, 8, true)).toBe(ErrorCode.NONE);
  expect(offsetCommitError(g, 'ghost', 5, 9, false)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
});

it('a classic member commits with its generation, in any version', () => {
  const g = group();
  expect(offsetCommitError(g, 'c', 5, 2, false)).toBe(ErrorCode.NONE);
  expect(offsetCommitError(g, 'c', 4, 9, false)).toBe(ErrorCode.ILLEGAL_GENERATION);
});

it('a commit without a member is taken only while the group is empty', () => {
  const g = group();
  expect(offsetCommitError(g, '', -1, 9, false)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  expect(offsetCommitError(new ConsumerGroup('e'), '', -1, 9, false)).toBe(ErrorCode.NONE);
});

it('OffsetFetch naming a member checks its epoch the same way', () => {
  const g = group();
  expect(offsetFetchError(g, null, -1)).toBe(ErrorCode.NONE);
  expect(offsetFetchError(g, 'm', 5)).toBe(ErrorCode.NONE);
  expect(offsetFetchError(g, 'm', 3)).toBe(ErrorCode.STALE_MEMBER_EPOCH);
  expect(offsetFetchError(g, 'c', 3)).toBe(ErrorCode.ILLEGAL_GENERATION);
  expect(offsetFetchError(g, 'ghost', 5)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
});
