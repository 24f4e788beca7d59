// response-nulls scenarios for the consumer group APIs: offsets, membership (classic and
// KIP-848), share groups (KIP-932), describe, list, delete; their error paths included.
import { ApiKey } from '../../../src/protocol/api-keys';
import * as m from '../../../src/protocol/messages';
import { ZERO_UUID } from '../../../src/protocol/uuid';
import { group } from './scenario';
import type { ScenarioTable } from './scenario';

export const GROUP_SCENARIOS: ScenarioTable = {
  [ApiKey.OffsetCommit]: [
    {
      name: 'simple commit',
      body: (v) => ({
        ...m.defaultOffsetCommitRequest(),
        groupId: group(v, 'commit'),
        generationIdOrMemberEpoch: -1,
        memberId: '',
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }],
      }),
    },
    {
      name: 'unknown member',
      body: (v) => ({
        ...m.defaultOffsetCommitRequest(),
        groupId: group(v, 'commit'),
        generationIdOrMemberEpoch: 3,
        memberId: 'who',
        topics: [{ name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }],
      }),
    },
  ],
  [ApiKey.OffsetFetch]: [
    {
      name: 'named and all',
      body: (v) =>
        v >= 8
          ? {
              ...m.defaultOffsetFetchRequest(),
              groups: [
                { groupId: group(v, 'fetch'), topics: [{ name: 't', partitionIndexes: [0] }] },
                { groupId: group(v, 'fetch-all'), topics: null },
              ],
            }
          : {
              ...m.defaultOffsetFetchRequest(),
              groupId: group(v, 'fetch'),
              topics: v >= 2 ? null : [{ name: 't', partitionIndexes: [0] }],
            },
    },
  ],
  [ApiKey.FindCoordinator]: [
    {
      name: 'group and transaction',
      body: (v) =>
        v >= 4
          ? { ...m.defaultFindCoordinatorRequest(), keyType: 1, coordinatorKeys: ['a', 'b'] }
          : { ...m.defaultFindCoordinatorRequest(), key: 'g', keyType: v >= 1 ? 1 : 0 },
    },
  ],
  [ApiKey.JoinGroup]: [
    {
      name: 'new member',
      body: (v) => ({
        ...m.defaultJoinGroupRequest(),
        groupId: group(v, 'join'),
        sessionTimeoutMs: 6000,
        rebalanceTimeoutMs: 6000,
        memberId: '',
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
      }),
    },
    {
      name: 'bad session timeout',
      body: (v) => ({
        ...m.defaultJoinGroupRequest(),
        groupId: group(v, 'join-bad'),
        sessionTimeoutMs: 1,
        memberId: '',
        protocolType: 'consumer',
        protocols: [],
      }),
    },
  ],
  [ApiKey.Heartbeat]: [
    {
      name: 'unknown member',
      body: (v) => ({ ...m.defaultHeartbeatRequest(), groupId: group(v, 'hb'), generationId: 1, memberId: 'who' }),
    },
  ],
  [ApiKey.LeaveGroup]: [
    {
      name: 'unknown member',
      body: (v) => ({
        ...m.defaultLeaveGroupRequest(),
        groupId: group(v, 'leave'),
        memberId: 'who',
        members: [{ memberId: 'who', groupInstanceId: null }],
      }),
    },
  ],
  [ApiKey.SyncGroup]: [
    {
      name: 'unknown member',
      body: (v) => ({
        ...m.defaultSyncGroupRequest(),
        groupId: group(v, 'sync'),
        generationId: 1,
        memberId: 'who',
        assignments: [],
      }),
    },
  ],
  [ApiKey.DescribeGroups]: [
    { name: 'unknown group', body: (v) => ({ ...m.defaultDescribeGroupsRequest(), groups: [group(v, 'nobody')] }) },
  ],
  [ApiKey.ListGroups]: [{ name: 'all', body: () => m.defaultListGroupsRequest() }],
  [ApiKey.DeleteGroups]: [
    { name: 'unknown', body: (v) => ({ ...m.defaultDeleteGroupsRequest(), groupsNames: [group(v, 'gone')] }) },
  ],
  [ApiKey.OffsetDelete]: [
    {
      name: 'unknown group',
      body: (v) => ({
        ...m.defaultOffsetDeleteRequest(),
        groupId: group(v, 'odel'),
        topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }],
      }),
    },
  ],
  [ApiKey.ConsumerGroupHeartbeat]: [
    {
      name: 'join',
      body: () => ({
        ...m.defaultConsumerGroupHeartbeatRequest(),
        groupId: 'kip848',
        memberId: 'nulls-member',
        memberEpoch: 0,
        rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: ['t'],
        topicPartitions: [],
      }),
    },
  ],
  [ApiKey.ConsumerGroupDescribe]: [
    {
      name: 'a joined group and an unknown one',
      body: () => ({ groupIds: ['kip848', 'nope'], includeAuthorizedOperations: true }),
    },
  ],
  [ApiKey.ShareGroupHeartbeat]: [
    {
      name: 'join',
      body: () => ({
        ...m.defaultShareGroupHeartbeatRequest(),
        groupId: 'kip932',
        memberId: 'nulls-share-member',
        memberEpoch: 0,
        subscribedTopicNames: ['t'],
      }),
    },
    {
      name: 'unknown member',
      body: () => ({ ...m.defaultShareGroupHeartbeatRequest(), groupId: 'kip932', memberId: 'who', memberEpoch: 3 }),
    },
  ],
  [ApiKey.ShareGroupDescribe]: [
    {
      name: 'a joined share group and an unknown one',
      body: () => ({ groupIds: ['kip932', 'nope'], includeAuthorizedOperations: true }),
    },
  ],
  [ApiKey.ShareFetch]: [
    {
      name: 'a new session naming an unknown topic id',
      body: () => ({
        ...m.defaultShareFetchRequest(),
        groupId: 'kip932',
        memberId: 'nulls-share-member',
        shareSessionEpoch: 0,
        maxRecords: 10,
        topics: [{ topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }],
      }),
    },
    {
      name: 'no session',
      body: () => ({ ...m.defaultShareFetchRequest(), groupId: 'kip932', memberId: 'who', shareSessionEpoch: 4 }),
    },
  ],
  [ApiKey.ShareAcknowledge]: [
    {
      name: 'no session',
      body: () => ({ ...m.defaultShareAcknowledgeRequest(), groupId: 'kip932', memberId: 'who', shareSessionEpoch: 4 }),
    },
  ],
  [ApiKey.DescribeShareGroupOffsets]: [
    {
      name: 'every partition of a share group, named topics of an unknown group',
      body: () => ({
        groups: [
          { groupId: 'kip932', topics: null },
          { groupId: 'nope', topics: [{ topicName: 'missing', partitions: [0] }] },
        ],
      }),
    },
  ],
  [ApiKey.AlterShareGroupOffsets]: [
    {
      name: 'a group with a member',
      body: () => ({
        groupId: 'kip932',
        topics: [{ topicName: 't', partitions: [{ partitionIndex: 0, startOffset: 0n }] }],
      }),
    },
    {
      name: 'an unknown group',
      body: () => ({ groupId: 'nope', topics: [] }),
    },
  ],
  [ApiKey.DeleteShareGroupOffsets]: [
    {
      name: 'a group with a member',
      body: () => ({ groupId: 'kip932', topics: [{ topicName: 't' }] }),
    },
  ],
};
