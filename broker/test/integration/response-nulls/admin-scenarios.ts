// response-nulls scenarios for the admin APIs: ApiVersions, topics, configs, partitions,
// log dirs, leaders and reassignments, DescribeCluster.
import { ApiKey } from '../../../src/protocol/api-keys';
import * as m from '../../../src/protocol/messages';
import { ZERO_UUID } from '../../../src/protocol/uuid';
import type { ScenarioTable } from './scenario';

export const ADMIN_SCENARIOS: ScenarioTable = {
  [ApiKey.ApiVersions]: [
    {
      name: 'ok',
      body: () => ({ ...m.defaultApiVersionsRequest(), clientSoftwareName: 'test', clientSoftwareVersion: '1' }),
    },
  ],
  [ApiKey.CreateTopics]: [
    {
      name: 'ok, exists, invalid, internal',
      body: (v) => ({
        ...m.defaultCreateTopicsRequest(),
        timeoutMs: 5000,
        topics: [`nulls-created-${v}`, 't', 'bad name!', '__consumer_offsets'].map((name) => ({
          name,
          numPartitions: 1,
          replicationFactor: 1,
          assignments: [],
          configs: [],
        })),
      }),
    },
  ],
  [ApiKey.DeleteTopics]: [
    {
      name: 'unknown',
      body: () => ({
        ...m.defaultDeleteTopicsRequest(),
        topicNames: ['nope'],
        topics: [{ name: 'nope', topicId: ZERO_UUID }],
        timeoutMs: 5000,
      }),
    },
  ],
  [ApiKey.DescribeConfigs]: [
    {
      name: 'topic, unknown, broker, bad type',
      body: () => ({
        ...m.defaultDescribeConfigsRequest(),
        resources: [
          { resourceType: 2, resourceName: 't', configurationKeys: null },
          { resourceType: 2, resourceName: 'nope', configurationKeys: null },
          { resourceType: 4, resourceName: '', configurationKeys: ['num.partitions'] },
          { resourceType: 99, resourceName: 'x', configurationKeys: null },
        ],
      }),
    },
  ],
  [ApiKey.AlterConfigs]: [
    {
      name: 'unknown topic',
      body: () => ({
        ...m.defaultAlterConfigsRequest(),
        resources: [{ resourceType: 2, resourceName: 'nope', configs: [] }],
        validateOnly: true,
      }),
    },
  ],
  [ApiKey.CreatePartitions]: [
    {
      name: 'unknown and too few',
      body: () => ({
        ...m.defaultCreatePartitionsRequest(),
        timeoutMs: 5000,
        validateOnly: true,
        topics: [
          { name: 'nope', count: 2, assignments: null },
          { name: 't', count: 1, assignments: null },
        ],
      }),
    },
  ],
  [ApiKey.IncrementalAlterConfigs]: [
    {
      name: 'unknown topic',
      body: () => ({
        ...m.defaultIncrementalAlterConfigsRequest(),
        resources: [{ resourceType: 2, resourceName: 'nope', configs: [] }],
        validateOnly: true,
      }),
    },
  ],
  [ApiKey.DescribeLogDirs]: [
    { name: 'all', body: () => ({ topics: null }) },
    {
      name: 'named',
      body: () => ({
        topics: [
          { topic: 't', partitions: [0, 3] },
          { topic: 'nope', partitions: [0] },
        ],
      }),
    },
  ],
  [ApiKey.ElectLeaders]: [
    {
      name: 'named',
      body: () => ({
        ...m.defaultElectLeadersRequest(),
        electionType: 0,
        topicPartitions: [
          { topic: 't', partitions: [0, 5] },
          { topic: 'nope', partitions: [0] },
        ],
        timeoutMs: 5000,
      }),
    },
    {
      name: 'all',
      body: () => ({ ...m.defaultElectLeadersRequest(), electionType: 1, topicPartitions: null, timeoutMs: 5000 }),
    },
  ],
  [ApiKey.AlterPartitionReassignments]: [
    {
      name: 'same, other, cancel, unknown',
      body: () => ({
        timeoutMs: 5000,
        topics: [
          {
            name: 't',
            partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, replicas: [partitionIndex + 1] })),
          },
          { name: 't', partitions: [{ partitionIndex: 0, replicas: null }] },
          { name: 'nope', partitions: [{ partitionIndex: 0, replicas: [1] }] },
        ],
      }),
    },
  ],
  [ApiKey.ListPartitionReassignments]: [
    { name: 'all', body: () => ({ timeoutMs: 5000, topics: null }) },
    { name: 'named', body: () => ({ timeoutMs: 5000, topics: [{ name: 't', partitionIndexes: [0] }] }) },
  ],
  [ApiKey.DescribeCluster]: [
    { name: 'brokers', body: () => ({ ...m.defaultDescribeClusterRequest(), endpointType: 1 }) },
    { name: 'controllers', body: () => ({ ...m.defaultDescribeClusterRequest(), endpointType: 2 }) },
  ],
};
