// response-nulls scenarios for the record APIs: Produce, Fetch, ListOffsets, Metadata,
// DeleteRecords, DescribeTopicPartitions (ok, empty, out of range, unknown topic).
import { ApiKey } from '../../../src/protocol/api-keys';
import * as m from '../../../src/protocol/messages';
import { ZERO_UUID } from '../../../src/protocol/uuid';
import { batch, fetchBody, OTHER_ID } from './scenario';
import type { ScenarioTable, TopicIds } from './scenario';

export function recordScenarios(ids: TopicIds): ScenarioTable {
  return {
    [ApiKey.Produce]: [
      {
        name: 'ok',
        body: () => ({
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: 't', partitionData: [{ index: 0, records: batch() }] }],
        }),
      },
      {
        name: 'unknown topic',
        body: () => ({
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: 'nope', partitionData: [{ index: 0, records: batch() }] }],
        }),
      },
    ],
    [ApiKey.Fetch]: [
      { name: 'ok', body: (v) => fetchBody('t', v >= 13 ? ids.topicId : ZERO_UUID, 0n) },
      { name: 'read_committed', body: (v) => fetchBody('t', v >= 13 ? ids.topicId : ZERO_UUID, 0n, 1) },
      { name: 'empty partition', body: (v) => fetchBody('empty', v >= 13 ? ids.emptyId : ZERO_UUID, 0n) },
      { name: 'out of range', body: (v) => fetchBody('t', v >= 13 ? ids.topicId : ZERO_UUID, 1000n) },
      { name: 'unknown topic', body: (v) => fetchBody('nope', v >= 13 ? OTHER_ID : ZERO_UUID, 0n) },
    ],
    [ApiKey.ListOffsets]: [
      {
        name: 'ok and unknown',
        body: () => ({
          ...m.defaultListOffsetsRequest(),
          replicaId: -1,
          topics: [
            { name: 't', partitions: [{ partitionIndex: 0, timestamp: -1n }] },
            { name: 'nope', partitions: [{ partitionIndex: 0, timestamp: -2n }] },
          ],
        }),
      },
    ],
    [ApiKey.Metadata]: [
      { name: 'all topics', body: (v) => ({ ...m.defaultMetadataRequest(), topics: v === 0 ? [] : null }) },
      {
        name: 'named',
        body: () => ({
          ...m.defaultMetadataRequest(),
          allowAutoTopicCreation: false,
          topics: [{ name: 't' }, { name: 'nope' }, { name: '__consumer_offsets' }, { name: 'bad name!' }],
        }),
      },
    ],
    [ApiKey.DeleteRecords]: [
      {
        name: 'ok and unknown',
        body: () => ({
          ...m.defaultDeleteRecordsRequest(),
          timeoutMs: 5000,
          topics: [
            { name: 't', partitions: [{ partitionIndex: 0, offset: 0n }] },
            { name: 'nope', partitions: [{ partitionIndex: 0, offset: 0n }] },
          ],
        }),
      },
    ],
    [ApiKey.DescribeTopicPartitions]: [
      { name: 'all', body: () => ({ topics: [], responsePartitionLimit: 1, cursor: null }) },
      { name: 'named', body: () => ({ topics: [{ name: 't' }, { name: 'nope' }], cursor: null }) },
    ],
  };
}
