// Error answers of the share-group APIs (KIP-932). The heartbeat and describe answers are those of
// their consumer-group twins (coordinators.ts); ShareFetch and ShareAcknowledge carry the error at
// the top level only, with no partitions, as Kafka's ShareFetchRequest/ShareAcknowledgeRequest
// getErrorResponse answer (the share consumer then retries the whole request).
import type * as M from '../../protocol/messages';
import { describedGroupsErrorBody, groupHeartbeatErrorBody } from './coordinators';
import type { ErrorAnswerBuilder } from './types';

export const shareGroupHeartbeatError: ErrorAnswerBuilder<
  M.ShareGroupHeartbeatRequest,
  M.ShareGroupHeartbeatResponse
> = (_req, _v, e) => groupHeartbeatErrorBody(e);

export const shareGroupDescribeError: ErrorAnswerBuilder<M.ShareGroupDescribeRequest, M.ShareGroupDescribeResponse> = (
  req,
  _v,
  e,
) => describedGroupsErrorBody(req.groupIds, e);

export const shareFetchError: ErrorAnswerBuilder<M.ShareFetchRequest, M.ShareFetchResponse> = (_req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  errorMessage: e.message,
  acquisitionLockTimeoutMs: 0,
  responses: [],
  nodeEndpoints: [],
});

export const shareAcknowledgeError: ErrorAnswerBuilder<M.ShareAcknowledgeRequest, M.ShareAcknowledgeResponse> = (
  _req,
  _v,
  e,
) => ({ throttleTimeMs: 0, errorCode: e.code, errorMessage: e.message, responses: [], nodeEndpoints: [] });

// The admin APIs (keys 90-92): Kafka's DescribeShareGroupOffsetsRequest.getErrorDescribedGroup per
// group, and Alter/DeleteShareGroupOffsetsRequest.getErrorResponse (top level, no topics).
export const describeShareGroupOffsetsError: ErrorAnswerBuilder<
  M.DescribeShareGroupOffsetsRequest,
  M.DescribeShareGroupOffsetsResponse
> = (req, _v, e) => ({
  throttleTimeMs: 0,
  groups: req.groups.map((g) => ({ groupId: g.groupId, topics: [], errorCode: e.code, errorMessage: e.message })),
});

export const alterShareGroupOffsetsError: ErrorAnswerBuilder<
  M.AlterShareGroupOffsetsRequest,
  M.AlterShareGroupOffsetsResponse
> = (_req, _v, e) => ({ throttleTimeMs: 0, errorCode: e.code, errorMessage: e.message, responses: [] });

export const deleteShareGroupOffsetsError: ErrorAnswerBuilder<
  M.DeleteShareGroupOffsetsRequest,
  M.DeleteShareGroupOffsetsResponse
> = (_req, _v, e) => ({ throttleTimeMs: 0, errorCode: e.code, errorMessage: e.message, responses: [] });
