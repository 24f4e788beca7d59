// The ACL refusals of the topic and record APIs (TOPIC_ or CLUSTER_AUTHORIZATION_FAILED where
// Kafka puts them), and of InitProducerId for an idempotent producer.
import { ApiKey } from '../../../src/protocol/api-keys';
import { ErrorCode } from '../../../src/protocol/error-codes';
import * as m from '../../../src/protocol/messages';
import { ZERO_UUID } from '../../../src/protocol/uuid';
import { batch } from './refusal';
import type { Refusal } from './refusal';

export const TOPIC_REFUSALS: Refusal[] = [
  {
    api: 'Produce',
    key: ApiKey.Produce,
    v: 9,
    body: () => ({
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: 't', partitionData: [{ index: 0, records: batch() }] }],
    }),
    codes: (r) => r.responses.flatMap((t: any) => t.partitionResponses.map((p: any) => p.errorCode)),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'Fetch',
    key: ApiKey.Fetch,
    v: 12,
    body: () => ({
      ...m.defaultFetchRequest(),
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      topics: [
        { topic: 't', topicId: ZERO_UUID, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] },
      ],
    }),
    codes: (r) => r.responses.flatMap((t: any) => t.partitions.map((p: any) => p.errorCode)),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'ListOffsets',
    key: ApiKey.ListOffsets,
    v: 7,
    body: () => ({
      ...m.defaultListOffsetsRequest(),
      replicaId: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp: -1n }] }],
    }),
    codes: (r) => r.topics.flatMap((t: any) => t.partitions.map((p: any) => p.errorCode)),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'Metadata (named, and one to auto-create)',
    key: ApiKey.Metadata,
    v: 12,
    body: () => ({
      ...m.defaultMetadataRequest(),
      allowAutoTopicCreation: true,
      topics: [
        { name: 't', topicId: ZERO_UUID },
        { name: 'fresh', topicId: ZERO_UUID },
      ],
    }),
    codes: (r) => r.topics.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'CreateTopics',
    key: ApiKey.CreateTopics,
    v: 7,
    body: () => ({
      ...m.defaultCreateTopicsRequest(),
      timeoutMs: 5000,
      topics: [{ name: 'fresh', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    }),
    codes: (r) => r.topics.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'DeleteTopics',
    key: ApiKey.DeleteTopics,
    v: 6,
    body: () => ({ ...m.defaultDeleteTopicsRequest(), topics: [{ name: 't', topicId: ZERO_UUID }], timeoutMs: 5000 }),
    codes: (r) => r.responses.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'CreatePartitions',
    key: ApiKey.CreatePartitions,
    v: 3,
    body: () => ({
      ...m.defaultCreatePartitionsRequest(),
      timeoutMs: 5000,
      validateOnly: false,
      topics: [{ name: 't', count: 4, assignments: null }],
    }),
    codes: (r) => r.results.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'DeleteRecords',
    key: ApiKey.DeleteRecords,
    v: 2,
    body: () => ({
      ...m.defaultDeleteRecordsRequest(),
      timeoutMs: 5000,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset: -1n }] }],
    }),
    codes: (r) => r.topics.flatMap((t: any) => t.partitions.map((p: any) => p.errorCode)),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'DescribeConfigs (topic, broker)',
    key: ApiKey.DescribeConfigs,
    v: 4,
    body: () => ({
      ...m.defaultDescribeConfigsRequest(),
      resources: [
        { resourceType: 2, resourceName: 't', configurationKeys: null },
        { resourceType: 4, resourceName: '', configurationKeys: null },
      ],
    }),
    codes: (r) => r.results.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'IncrementalAlterConfigs (retention.ms=1 on the topic, a broker config)',
    key: ApiKey.IncrementalAlterConfigs,
    v: 1,
    body: () => ({
      ...m.defaultIncrementalAlterConfigsRequest(),
      validateOnly: false,
      resources: [
        { resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', configOperation: 0, value: '1' }] },
        { resourceType: 4, resourceName: '', configs: [{ name: 'log.retention.ms', configOperation: 0, value: '1' }] },
      ],
    }),
    codes: (r) => r.responses.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
  {
    api: 'AlterConfigs',
    key: ApiKey.AlterConfigs,
    v: 2,
    body: () => ({
      ...m.defaultAlterConfigsRequest(),
      validateOnly: false,
      resources: [{ resourceType: 2, resourceName: 't', configs: [{ name: 'retention.ms', value: '1' }] }],
    }),
    codes: (r) => r.responses.map((t: any) => t.errorCode),
    want: [ErrorCode.TOPIC_AUTHORIZATION_FAILED],
  },
  {
    api: 'InitProducerId (idempotent)',
    key: ApiKey.InitProducerId,
    v: 4,
    body: () => ({ ...m.defaultInitProducerIdRequest(), transactionalId: null, transactionTimeoutMs: 60000 }),
    codes: (r) => [r.errorCode],
    want: [ErrorCode.CLUSTER_AUTHORIZATION_FAILED],
  },
];
