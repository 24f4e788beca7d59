// The ACL refusals of the consumer group APIs (GROUP_AUTHORIZATION_FAILED where Kafka puts it).
import { ApiKey } from '../../../src/protocol/api-keys';
import { ErrorCode } from '../../../src/protocol/error-codes';
import * as m from '../../../src/protocol/messages';
import { G } from './refusal';
import type { Refusal } from './refusal';

export const GROUP_REFUSALS: Refusal[] = [
  {
    api: 'FindCoordinator',
    key: ApiKey.FindCoordinator,
    v: 4,
    body: () => ({ ...m.defaultFindCoordinatorRequest(), keyType: 0, coordinatorKeys: [G] }),
    codes: (r) => r.coordinators.map((c: any) => c.errorCode),
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'JoinGroup',
    key: ApiKey.JoinGroup,
    v: 9,
    body: () => ({
      ...m.defaultJoinGroupRequest(),
      groupId: G,
      sessionTimeoutMs: 6000,
      rebalanceTimeoutMs: 6000,
      memberId: '',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'SyncGroup',
    key: ApiKey.SyncGroup,
    v: 5,
    body: () => ({ ...m.defaultSyncGroupRequest(), groupId: G, generationId: 1, memberId: 'who', assignments: [] }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'Heartbeat',
    key: ApiKey.Heartbeat,
    v: 4,
    body: () => ({ ...m.defaultHeartbeatRequest(), groupId: G, generationId: 1, memberId: 'who' }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'LeaveGroup',
    key: ApiKey.LeaveGroup,
    v: 5,
    body: () => ({
      ...m.defaultLeaveGroupRequest(),
      groupId: G,
      memberId: 'who',
      members: [{ memberId: 'who', groupInstanceId: null }],
    }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'OffsetCommit',
    key: ApiKey.OffsetCommit,
    v: 8,
    body: () => ({
      ...m.defaultOffsetCommitRequest(),
      groupId: G,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedMetadata: null }] }],
    }),
    codes: (r) => r.topics.flatMap((t: any) => t.partitions.map((p: any) => p.errorCode)),
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'OffsetFetch',
    key: ApiKey.OffsetFetch,
    v: 8,
    body: () => ({ ...m.defaultOffsetFetchRequest(), groups: [{ groupId: G, topics: null }] }),
    codes: (r) => r.groups.map((g: any) => g.errorCode),
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'OffsetDelete',
    key: ApiKey.OffsetDelete,
    v: 0,
    body: () => ({
      ...m.defaultOffsetDeleteRequest(),
      groupId: G,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }],
    }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeGroups',
    key: ApiKey.DescribeGroups,
    v: 5,
    body: () => ({ ...m.defaultDescribeGroupsRequest(), groups: [G] }),
    codes: (r) => r.groups.map((g: any) => g.errorCode),
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
  {
    api: 'DeleteGroups',
    key: ApiKey.DeleteGroups,
    v: 2,
    body: () => ({ ...m.defaultDeleteGroupsRequest(), groupsNames: [G] }),
    codes: (r) => r.results.map((g: any) => g.errorCode),
    want: [ErrorCode.GROUP_AUTHORIZATION_FAILED],
  },
];
