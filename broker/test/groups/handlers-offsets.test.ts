// The group API handlers, offsets: OffsetCommit / OffsetFetch (v8+ groups) / OffsetDelete in every
// version, as the server answers them.

import { ErrorCode } from '../../src/protocol/error-codes';
import { setup, K, range, joinAndSync } from './handler-calls';
describe('offsets', () => {
  it.each(range(2, 9))('OffsetCommit v%i then OffsetFetch of the same partitions', async (v) => {
    const { call } = setup();
    const c = await call(K.OffsetCommit, v, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 1, committedOffset: 17n, committedLeaderEpoch: 2, committedMetadata: 'm' }],
        },
      ],
    });
    expect(c.topics).toEqual([{ name: 't', partitions: [{ partitionIndex: 1, errorCode: 0 }] }]);
    const f = await call(K.OffsetFetch, Math.min(v, 7), {
      groupId: 'g',
      topics: [{ name: 't', partitionIndexes: [0, 1] }],
    });
    expect(f.topics[0].partitions).toEqual([
      { partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
      {
        partitionIndex: 1,
        committedOffset: 17n,
        committedLeaderEpoch: v >= 6 && v >= 5 ? 2 : -1,
        metadata: 'm',
        errorCode: 0,
      },
    ]);
  });

  it('OffsetCommit of an offset past 2^53 - 1 (here int64 max) is refused for its partition; the others commit and OffsetFetch still answers', async () => {
    const { call } = setup();
    const c = await call(K.OffsetCommit, 8, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, committedOffset: 2n ** 63n - 1n, committedLeaderEpoch: -1, committedMetadata: '' },
            { partitionIndex: 1, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' },
          ],
        },
      ],
    });
    expect(c.topics[0].partitions).toEqual([
      { partitionIndex: 0, errorCode: ErrorCode.INVALID_COMMIT_OFFSET_SIZE },
      { partitionIndex: 1, errorCode: 0 },
    ]);
    const f = await call(K.OffsetFetch, 7, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1] }] });
    expect(f.topics[0].partitions.map((p: any) => p.committedOffset)).toEqual([-1n, 5n]);
  });

  it('OffsetCommit v1 (sarama before 1.41): a member commits with its generation; commitTimestamp is accepted', async () => {
    const { call } = setup();
    const { memberId, generationId } = await joinAndSync(call, 1);
    const commit = (gen: number, offset: bigint) =>
      call(K.OffsetCommit, 1, {
        groupId: 'g',
        generationIdOrMemberEpoch: gen,
        memberId,
        topics: [
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, committedOffset: offset, commitTimestamp: -1n, committedMetadata: '' },
              {
                partitionIndex: 1,
                committedOffset: offset + 1n,
                commitTimestamp: 1_700_000_000_000n,
                committedMetadata: 'x',
              },
            ],
          },
        ],
      });
    expect((await commit(generationId, 4n)).topics[0].partitions).toEqual([
      { partitionIndex: 0, errorCode: 0 },
      { partitionIndex: 1, errorCode: 0 },
    ]);
    expect(
      (await commit(generationId + 1, 9n)).topics[0].partitions.map((p: { errorCode: number }) => p.errorCode),
    ).toEqual([ErrorCode.ILLEGAL_GENERATION, ErrorCode.ILLEGAL_GENERATION]);
    const f = await call(K.OffsetFetch, 1, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1] }] });
    expect(
      f.topics[0].partitions.map((p: { committedOffset: bigint; metadata: string }) => [p.committedOffset, p.metadata]),
    ).toEqual([
      [4n, ''],
      [5n, 'x'],
    ]);
  });

  it('OffsetCommit v0: UNSUPPORTED_VERSION for every partition, as a KRaft Kafka 3.9 answers (v0 commits went to ZooKeeper); nothing stored', async () => {
    const { call, engine } = setup();
    const c = await call(K.OffsetCommit, 0, {
      groupId: 'g',
      topics: [
        { name: 't', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedMetadata: '' }] },
        { name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedMetadata: '' }] },
      ],
    });
    expect(c.topics).toEqual([
      { name: 't', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION }] },
      { name: 'nope', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION }] },
    ]);
    const unknownOnly = await call(K.OffsetCommit, 0, {
      groupId: 'g',
      topics: [{ name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 3n, committedMetadata: '' }] }],
    });
    expect(unknownOnly.topics[0].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(engine.fetchOffsets('g')).toEqual([]);
  });

  it('OffsetFetch v0: UNSUPPORTED_VERSION and offset -1 for every partition asked, as a KRaft Kafka 3.9 answers', async () => {
    const { call } = setup();
    await call(K.OffsetCommit, 8, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    });
    const f = await call(K.OffsetFetch, 0, { groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1] }] });
    expect(f.topics).toEqual([
      {
        name: 't',
        partitions: [0, 1].map((partitionIndex) => ({
          partitionIndex,
          committedOffset: -1n,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: ErrorCode.UNSUPPORTED_VERSION,
        })),
      },
    ]);
  });

  it.each([1, 2, 5, 7])('OffsetFetch v%i', async (v) => {
    const { call } = setup();
    await call(K.OffsetCommit, 8, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: 4, committedMetadata: null }],
        },
      ],
    });
    const f = await call(K.OffsetFetch, v, {
      groupId: 'g',
      topics: v >= 2 ? null : [{ name: 't', partitionIndexes: [0] }],
      requireStable: false,
    });
    expect(f.topics).toEqual([
      {
        name: 't',
        partitions: [
          { partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: v >= 5 ? 4 : -1, metadata: '', errorCode: 0 },
        ],
      },
    ]);
  });

  it.each([8, 9])('OffsetFetch v%i fetches several groups at once', async (v) => {
    const { call } = setup();
    await call(K.OffsetCommit, 8, {
      groupId: 'a',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    });
    await call(K.OffsetCommit, 8, {
      groupId: 'b',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 1, committedOffset: 2n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    });
    const f = await call(K.OffsetFetch, v, {
      groups: [
        { groupId: 'a', memberId: null, memberEpoch: -1, topics: null },
        { groupId: 'b', memberId: null, memberEpoch: -1, topics: [{ name: 't', partitionIndexes: [0, 1] }] },
      ],
      requireStable: false,
    });
    expect(f.groups).toEqual([
      {
        groupId: 'a',
        errorCode: 0,
        topics: [
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
            ],
          },
        ],
      },
      {
        groupId: 'b',
        errorCode: 0,
        topics: [
          {
            name: 't',
            partitions: [
              { partitionIndex: 0, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
              { partitionIndex: 1, committedOffset: 2n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 },
            ],
          },
        ],
      },
    ]);
  });

  it('OffsetDelete v0', async () => {
    const { call } = setup();
    await call(K.OffsetCommit, 8, {
      groupId: 'g',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    });
    const r = await call(K.OffsetDelete, 0, {
      groupId: 'g',
      topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }],
    });
    expect(r).toEqual({
      errorCode: 0,
      throttleTimeMs: 0,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0 }] }],
    });
    expect((await call(K.OffsetDelete, 0, { groupId: 'g', topics: [] })).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});
