// The ACL refusals of the cluster APIs: ACLs, log dirs, leaders, reassignments, quotas, SCRAM users.
import { ApiKey } from '../../../src/protocol/api-keys';
import { ErrorCode } from '../../../src/protocol/error-codes';
import type { Refusal } from './refusal';
import { ANY_ACL_FILTER } from '../../../src/protocol/acl';

export const CLUSTER_REFUSALS: Refusal[] = [
  {
    api: 'DescribeAcls',
    key: ApiKey.DescribeAcls,
    v: 3,
    body: () => ({
      ...ANY_ACL_FILTER,
    }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'CreateAcls (granting itself ALL)',
    key: ApiKey.CreateAcls,
    v: 3,
    body: () => ({
      creations: [
        {
          resourceType: 2,
          resourceName: '*',
          resourcePatternType: 3,
          principal: 'User:mallory',
          host: '*',
          operation: 2,
          permissionType: 3,
        },
      ],
    }),
    codes: (r) => r.results.map((c: any) => c.errorCode),
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'DeleteAcls',
    key: ApiKey.DeleteAcls,
    v: 3,
    body: () => ({
      filters: [
        {
          ...ANY_ACL_FILTER,
        },
      ],
    }),
    codes: (r) => r.filterResults.map((f: any) => f.errorCode),
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeLogDirs',
    key: ApiKey.DescribeLogDirs,
    v: 4,
    body: () => ({ topics: null }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'ElectLeaders',
    key: ApiKey.ElectLeaders,
    v: 2,
    body: () => ({ electionType: 0, topicPartitions: [{ topic: 't', partitions: [0] }], timeoutMs: 5000 }),
    codes: (r) => [
      r.errorCode,
      ...r.replicaElectionResults.flatMap((t: any) => t.partitionResult.map((p: any) => p.errorCode)),
    ],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'ListPartitionReassignments',
    key: ApiKey.ListPartitionReassignments,
    v: 0,
    body: () => ({ timeoutMs: 5000, topics: null }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeClientQuotas',
    key: ApiKey.DescribeClientQuotas,
    v: 1,
    body: () => ({ components: [], strict: false }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'AlterClientQuotas (lifting its own limit)',
    key: ApiKey.AlterClientQuotas,
    v: 1,
    body: () => ({
      validateOnly: false,
      entries: [
        {
          entity: [{ entityType: 'user', entityName: 'mallory' }],
          ops: [{ key: 'producer_byte_rate', value: 1e9, remove: false }],
        },
      ],
    }),
    codes: (r) => r.entries.map((e: any) => e.errorCode),
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeUserScramCredentials',
    key: ApiKey.DescribeUserScramCredentials,
    v: 0,
    body: () => ({ users: [{ name: 'admin' }] }),
    codes: (r) => [r.errorCode, ...r.results.map((u: any) => u.errorCode)],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'AlterUserScramCredentials (making itself a user)',
    key: ApiKey.AlterUserScramCredentials,
    v: 0,
    body: () => ({
      deletions: [],
      upsertions: [
        {
          name: 'mallory',
          mechanism: 2,
          iterations: 4096,
          salt: Buffer.alloc(16, 1),
          saltedPassword: Buffer.alloc(64, 2),
        },
      ],
    }),
    codes: (r) => r.results.map((u: any) => u.errorCode),
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
];
