// response-nulls scenarios for the transaction APIs and the producers' admin APIs
// (DescribeProducers, WriteTxnMarkers, ListTransactions).
import { ApiKey } from '../../../src/protocol/api-keys';
import * as m from '../../../src/protocol/messages';
import type { ScenarioTable } from './scenario';

export const TRANSACTION_SCENARIOS: ScenarioTable = {
  [ApiKey.InitProducerId]: [
    {
      name: 'idempotent',
      body: () => ({ ...m.defaultInitProducerIdRequest(), transactionalId: null, transactionTimeoutMs: 60000 }),
    },
    {
      name: 'transactional',
      body: () => ({ ...m.defaultInitProducerIdRequest(), transactionalId: 'tx', transactionTimeoutMs: 60000 }),
    },
  ],
  // Transactions: the error paths (no such producer, unknown partitions, unknown id).
  [ApiKey.AddPartitionsToTxn]: [
    {
      name: 'unknown producer, unknown partition',
      body: () => ({
        v3AndBelowTransactionalId: 'nulls-tx',
        v3AndBelowProducerId: 5n,
        v3AndBelowProducerEpoch: 0,
        v3AndBelowTopics: [
          { name: 't', partitions: [0] },
          { name: 'nope', partitions: [0] },
        ],
      }),
    },
    {
      name: 'unknown producer',
      body: () => ({
        v3AndBelowTransactionalId: 'nulls-tx',
        v3AndBelowProducerId: 5n,
        v3AndBelowProducerEpoch: 0,
        v3AndBelowTopics: [{ name: 't', partitions: [0] }],
      }),
    },
  ],
  [ApiKey.AddOffsetsToTxn]: [
    {
      name: 'unknown producer',
      body: () => ({ transactionalId: 'nulls-tx', producerId: 5n, producerEpoch: 0, groupId: 'g' }),
    },
  ],
  [ApiKey.TxnOffsetCommit]: [
    {
      name: 'unknown producer, unknown partition',
      body: () => ({
        ...m.defaultTxnOffsetCommitRequest(),
        transactionalId: 'nulls-tx',
        groupId: 'g',
        producerId: 5n,
        producerEpoch: 0,
        topics: [
          { name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] },
          { name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: '' }] },
        ],
      }),
    },
  ],
  [ApiKey.EndTxn]: [
    {
      name: 'unknown producer',
      body: () => ({ transactionalId: 'nulls-tx', producerId: 5n, producerEpoch: 0, committed: true }),
    },
  ],
  [ApiKey.DescribeTransactions]: [
    { name: 'unknown and empty', body: () => ({ transactionalIds: ['nulls-none', ''] }) },
  ],
  [ApiKey.DescribeProducers]: [
    {
      name: 'known, unknown',
      body: () => ({
        topics: [
          { name: 't', partitionIndexes: [0, 99] },
          { name: 'nope', partitionIndexes: [0] },
        ],
      }),
    },
  ],
  [ApiKey.WriteTxnMarkers]: [
    {
      name: 'old epoch, unknown',
      body: () => ({
        markers: [
          {
            producerId: 1n,
            producerEpoch: 0,
            transactionResult: false,
            coordinatorEpoch: 0,
            topics: [{ name: 'nope', partitionIndexes: [0] }],
          },
        ],
      }),
    },
  ],
  [ApiKey.ListTransactions]: [
    {
      name: 'filtered',
      body: () => ({ stateFilters: ['Ongoing', 'Bogus'], producerIdFilters: [], durationFilter: -1n }),
    },
  ],
};
