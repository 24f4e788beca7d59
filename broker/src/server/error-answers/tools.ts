// Error answers of the operator-tool APIs (kafka-topics' DescribeTopicPartitions, kafka-transactions'
// DescribeProducers and WriteTxnMarkers, kafka-reassign-partitions' AlterPartitionReassignments):
// every key of the request echoed with the error, as Kafka's *Request.getErrorResponse.
import type * as M from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../handlers/metadata';
import type { ErrorAnswerBuilder } from './types';

export const describeTopicPartitionsError: ErrorAnswerBuilder<
  M.DescribeTopicPartitionsRequest,
  M.DescribeTopicPartitionsResponse
> = (req, _v, e) => ({
  throttleTimeMs: 0,
  topics: req.topics.map((t) => ({
    errorCode: e.code,
    name: t.name,
    topicId: ZERO_UUID,
    isInternal: false,
    partitions: [],
    topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  })),
  nextCursor: null,
});

export const describeProducersError: ErrorAnswerBuilder<M.DescribeProducersRequest, M.DescribeProducersResponse> = (
  req,
  _v,
  e,
) => ({
  throttleTimeMs: 0,
  topics: req.topics.map((t) => ({
    name: t.name,
    partitions: t.partitionIndexes.map((partitionIndex) => ({
      partitionIndex,
      errorCode: e.code,
      errorMessage: null,
      activeProducers: [],
    })),
  })),
});

export const writeTxnMarkersError: ErrorAnswerBuilder<M.WriteTxnMarkersRequest, M.WriteTxnMarkersResponse> = (
  req,
  _v,
  e,
) => ({
  markers: req.markers.map((m) => ({
    producerId: m.producerId,
    topics: m.topics.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode: e.code })),
    })),
  })),
});

export const alterPartitionReassignmentsError: ErrorAnswerBuilder<
  M.AlterPartitionReassignmentsRequest,
  M.AlterPartitionReassignmentsResponse
> = (req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  errorMessage: e.message,
  responses: req.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partitionIndex,
      errorCode: e.code,
      errorMessage: e.message,
    })),
  })),
});
