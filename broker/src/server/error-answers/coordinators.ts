// Error answers of the group and transaction coordinator APIs: every group, member, transactional
// id and partition of the request echoed with the error, as Kafka's *Request.getErrorResponse
// (clients/src/main/java/org/apache/kafka/common/requests/). Where Kafka sets only the top-level
// code (LeaveGroup v3+, OffsetDelete, OffsetFetch v8+), the echoed entries carry it too: clients
// read the top-level code first.
import type * as M from '../../protocol/messages';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../handlers/metadata';
import type { ErrorAnswerBuilder } from './types';

const partitionsOf = <P extends { partitionIndex: number }>(ps: P[], code: number) =>
  ps.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code }));

export const findCoordinatorError: ErrorAnswerBuilder<M.FindCoordinatorRequest, M.FindCoordinatorResponse> = (
  req,
  v,
  e,
) =>
  v < 4
    ? { throttleTimeMs: 0, errorCode: e.code, errorMessage: e.message, nodeId: -1, host: '', port: -1 }
    : {
        throttleTimeMs: 0,
        coordinators: (req.coordinatorKeys ?? []).map((key) => ({
          key,
          nodeId: -1,
          host: '',
          port: -1,
          errorCode: e.code,
          errorMessage: e.message,
        })),
      };

export const joinGroupError: ErrorAnswerBuilder<M.JoinGroupRequest, M.JoinGroupResponse> = (_req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  generationId: -1,
  protocolType: null,
  protocolName: '',
  leader: '',
  skipAssignment: false,
  memberId: '',
  members: [],
});

export const syncGroupError: ErrorAnswerBuilder<M.SyncGroupRequest, M.SyncGroupResponse> = (_req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  protocolType: null,
  protocolName: null,
  assignment: Buffer.alloc(0),
});

export const heartbeatError: ErrorAnswerBuilder<M.HeartbeatRequest, M.HeartbeatResponse> = (_req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
});

export const leaveGroupError: ErrorAnswerBuilder<M.LeaveGroupRequest, M.LeaveGroupResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  members: (req.members ?? []).map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId ?? null,
    errorCode: e.code,
  })),
});

export const offsetCommitError: ErrorAnswerBuilder<M.OffsetCommitRequest, M.OffsetCommitResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  topics: req.topics.map((t) => ({ name: t.name, partitions: partitionsOf(t.partitions, e.code) })),
});

const fetchedPartitions = (indexes: number[], code: number) =>
  indexes.map((partitionIndex) => ({
    partitionIndex,
    committedOffset: -1n,
    committedLeaderEpoch: -1,
    metadata: '',
    errorCode: code,
  }));

export const offsetFetchError: ErrorAnswerBuilder<M.OffsetFetchRequest, M.OffsetFetchResponse> = (req, v, e) =>
  v < 8
    ? {
        throttleTimeMs: 0,
        errorCode: e.code,
        topics: (req.topics ?? []).map((t) => ({
          name: t.name,
          partitions: fetchedPartitions(t.partitionIndexes ?? [], e.code),
        })),
      }
    : {
        throttleTimeMs: 0,
        groups: (req.groups ?? []).map((g) => ({
          groupId: g.groupId,
          errorCode: e.code,
          topics: (g.topics ?? []).map((t) => ({
            name: t.name,
            partitions: fetchedPartitions(t.partitionIndexes ?? [], e.code),
          })),
        })),
      };

export const listGroupsError: ErrorAnswerBuilder<M.ListGroupsRequest, M.ListGroupsResponse> = (_req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  groups: [],
});

export const describeGroupsError: ErrorAnswerBuilder<M.DescribeGroupsRequest, M.DescribeGroupsResponse> = (
  req,
  _v,
  e,
) => ({
  throttleTimeMs: 0,
  groups: req.groups.map((groupId) => ({
    errorCode: e.code,
    groupId,
    groupState: '',
    protocolType: '',
    protocolData: '',
    members: [],
    authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  })),
});

export const deleteGroupsError: ErrorAnswerBuilder<M.DeleteGroupsRequest, M.DeleteGroupsResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  results: req.groupsNames.map((groupId) => ({ groupId, errorCode: e.code })),
});

export const offsetDeleteError: ErrorAnswerBuilder<M.OffsetDeleteRequest, M.OffsetDeleteResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  topics: req.topics.map((t) => ({ name: t.name, partitions: partitionsOf(t.partitions, e.code) })),
});

/** A KIP-848 / KIP-932 heartbeat's error answer: the two responses have the same fields. */
export const groupHeartbeatErrorBody = (e: { code: number; message: string | null }) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  errorMessage: e.message,
  memberId: null,
  memberEpoch: 0,
  heartbeatIntervalMs: 0,
  assignment: null,
});

/** A ConsumerGroupDescribe / ShareGroupDescribe error answer: each group named, with the error. */
export const describedGroupsErrorBody = (groupIds: string[], e: { code: number; message: string | null }) => ({
  throttleTimeMs: 0,
  groups: groupIds.map((groupId) => ({
    errorCode: e.code,
    errorMessage: e.message,
    groupId,
    groupState: '',
    groupEpoch: -1,
    assignmentEpoch: -1,
    assignorName: '',
    members: [],
    authorizedOperations: -2147483648,
  })),
});

export const consumerGroupHeartbeatError: ErrorAnswerBuilder<
  M.ConsumerGroupHeartbeatRequest,
  M.ConsumerGroupHeartbeatResponse
> = (_req, _v, e) => groupHeartbeatErrorBody(e);

export const consumerGroupDescribeError: ErrorAnswerBuilder<
  M.ConsumerGroupDescribeRequest,
  M.ConsumerGroupDescribeResponse
> = (req, _v, e) => describedGroupsErrorBody(req.groupIds, e);

export const initProducerIdError: ErrorAnswerBuilder<M.InitProducerIdRequest, M.InitProducerIdResponse> = (
  _req,
  _v,
  e,
) => ({ throttleTimeMs: 0, errorCode: e.code, producerId: -1n, producerEpoch: -1 });

const txnTopics = (topics: { name: string; partitions: number[] }[], code: number) =>
  topics.map((t) => ({
    name: t.name,
    resultsByPartition: t.partitions.map((partitionIndex) => ({ partitionIndex, partitionErrorCode: code })),
  }));

export const addPartitionsToTxnError: ErrorAnswerBuilder<M.AddPartitionsToTxnRequest, M.AddPartitionsToTxnResponse> = (
  req,
  v,
  e,
) =>
  v < 4
    ? { throttleTimeMs: 0, resultsByTopicV3AndBelow: txnTopics(req.v3AndBelowTopics ?? [], e.code) }
    : {
        throttleTimeMs: 0,
        errorCode: e.code,
        resultsByTransaction: (req.transactions ?? []).map((t) => ({
          transactionalId: t.transactionalId,
          topicResults: txnTopics(t.topics ?? [], e.code),
        })),
      };

export const addOffsetsToTxnError: ErrorAnswerBuilder<M.AddOffsetsToTxnRequest, M.AddOffsetsToTxnResponse> = (
  _req,
  _v,
  e,
) => ({ throttleTimeMs: 0, errorCode: e.code });

export const endTxnError: ErrorAnswerBuilder<M.EndTxnRequest, M.EndTxnResponse> = (_req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  producerId: -1n,
  producerEpoch: -1,
});

export const txnOffsetCommitError: ErrorAnswerBuilder<M.TxnOffsetCommitRequest, M.TxnOffsetCommitResponse> = (
  req,
  _v,
  e,
) => ({
  throttleTimeMs: 0,
  topics: req.topics.map((t) => ({ name: t.name, partitions: partitionsOf(t.partitions, e.code) })),
});

export const describeTransactionsError: ErrorAnswerBuilder<
  M.DescribeTransactionsRequest,
  M.DescribeTransactionsResponse
> = (req, _v, e) => ({
  throttleTimeMs: 0,
  transactionStates: req.transactionalIds.map((transactionalId) => ({
    errorCode: e.code,
    transactionalId,
    transactionState: '',
    transactionTimeoutMs: 0,
    transactionStartTimeMs: -1n,
    producerId: -1n,
    producerEpoch: -1,
    topics: [],
  })),
});

export const listTransactionsError: ErrorAnswerBuilder<M.ListTransactionsRequest, M.ListTransactionsResponse> = (
  _req,
  _v,
  e,
) => ({ throttleTimeMs: 0, errorCode: e.code, unknownStateFilters: [], transactionStates: [] });
