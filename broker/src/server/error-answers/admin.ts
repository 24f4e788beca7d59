// Error answers of the admin and SASL APIs: every topic, resource, ACL filter, quota entity and
// user of the request echoed with the error, as Kafka's *Request.getErrorResponse
// (clients/src/main/java/org/apache/kafka/common/requests/).
import type * as M from '../../protocol/messages';
import { ZERO_UUID } from '../../protocol/uuid';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../handlers/metadata';
import type { ErrorAnswerBuilder } from './types';

export const createTopicsError: ErrorAnswerBuilder<M.CreateTopicsRequest, M.CreateTopicsResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  topics: req.topics.map((t) => ({
    name: t.name,
    topicId: ZERO_UUID,
    errorCode: e.code,
    errorMessage: e.message,
    numPartitions: -1,
    replicationFactor: -1,
    configs: [],
  })),
});

export const deleteTopicsError: ErrorAnswerBuilder<M.DeleteTopicsRequest, M.DeleteTopicsResponse> = (req, v, e) => ({
  throttleTimeMs: 0,
  responses:
    v < 6
      ? (req.topicNames ?? []).map((name) => ({ name, errorCode: e.code, errorMessage: e.message }))
      : (req.topics ?? []).map((t) => ({
          name: t.name ?? null,
          topicId: t.topicId ?? ZERO_UUID,
          errorCode: e.code,
          errorMessage: e.message,
        })),
});

export const describeConfigsError: ErrorAnswerBuilder<M.DescribeConfigsRequest, M.DescribeConfigsResponse> = (
  req,
  _v,
  e,
) => ({
  throttleTimeMs: 0,
  results: req.resources.map((r) => ({
    errorCode: e.code,
    errorMessage: e.message,
    resourceType: r.resourceType,
    resourceName: r.resourceName,
    configs: [],
  })),
});

const alterResults = (
  resources: { resourceType: number; resourceName: string }[],
  e: { code: number; message: string | null },
) =>
  resources.map((r) => ({
    errorCode: e.code,
    errorMessage: e.message,
    resourceType: r.resourceType,
    resourceName: r.resourceName,
  }));

export const alterConfigsError: ErrorAnswerBuilder<M.AlterConfigsRequest, M.AlterConfigsResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  responses: alterResults(req.resources, e),
});

export const incrementalAlterConfigsError: ErrorAnswerBuilder<
  M.IncrementalAlterConfigsRequest,
  M.IncrementalAlterConfigsResponse
> = (req, _v, e) => ({ throttleTimeMs: 0, responses: alterResults(req.resources, e) });

export const createPartitionsError: ErrorAnswerBuilder<M.CreatePartitionsRequest, M.CreatePartitionsResponse> = (
  req,
  _v,
  e,
) => ({
  throttleTimeMs: 0,
  results: req.topics.map((t) => ({ name: t.name, errorCode: e.code, errorMessage: e.message })),
});

export const describeClusterError: ErrorAnswerBuilder<M.DescribeClusterRequest, M.DescribeClusterResponse> = (
  _req,
  _v,
  e,
  ctx,
) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  errorMessage: e.message,
  clusterId: ctx.broker.identity.clusterId,
  controllerId: -1,
  brokers: [],
  clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
});

export const describeAclsError: ErrorAnswerBuilder<M.DescribeAclsRequest, M.DescribeAclsResponse> = (_req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  errorMessage: e.message,
  resources: [],
});

export const createAclsError: ErrorAnswerBuilder<M.CreateAclsRequest, M.CreateAclsResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  results: req.creations.map(() => ({ errorCode: e.code, errorMessage: e.message })),
});

export const deleteAclsError: ErrorAnswerBuilder<M.DeleteAclsRequest, M.DeleteAclsResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  filterResults: req.filters.map(() => ({ errorCode: e.code, errorMessage: e.message, matchingAcls: [] })),
});

/** Kafka: the top-level code (v3+) and no results; v0-2 have no error field but per log dir. */
export const describeLogDirsError: ErrorAnswerBuilder<M.DescribeLogDirsRequest, M.DescribeLogDirsResponse> = (
  _req,
  _v,
  e,
) => ({ throttleTimeMs: 0, errorCode: e.code, results: [] });

export const electLeadersError: ErrorAnswerBuilder<M.ElectLeadersRequest, M.ElectLeadersResponse> = (req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  replicaElectionResults: (req.topicPartitions ?? []).map((t) => ({
    topic: t.topic,
    partitionResult: t.partitions.map((partitionId) => ({
      partitionId,
      errorCode: e.code,
      errorMessage: e.message,
    })),
  })),
});

export const listPartitionReassignmentsError: ErrorAnswerBuilder<
  M.ListPartitionReassignmentsRequest,
  M.ListPartitionReassignmentsResponse
> = (_req, _v, e) => ({ throttleTimeMs: 0, errorCode: e.code, errorMessage: e.message, topics: [] });

export const describeClientQuotasError: ErrorAnswerBuilder<
  M.DescribeClientQuotasRequest,
  M.DescribeClientQuotasResponse
> = (_req, _v, e) => ({ throttleTimeMs: 0, errorCode: e.code, errorMessage: e.message, entries: [] });

export const alterClientQuotasError: ErrorAnswerBuilder<M.AlterClientQuotasRequest, M.AlterClientQuotasResponse> = (
  req,
  _v,
  e,
) => ({
  throttleTimeMs: 0,
  entries: req.entries.map((entry) => ({
    errorCode: e.code,
    errorMessage: e.message,
    entity: entry.entity.map((x) => ({ entityType: x.entityType, entityName: x.entityName })),
  })),
});

export const describeUserScramCredentialsError: ErrorAnswerBuilder<
  M.DescribeUserScramCredentialsRequest,
  M.DescribeUserScramCredentialsResponse
> = (req, _v, e) => ({
  throttleTimeMs: 0,
  errorCode: e.code,
  errorMessage: e.message,
  results: (req.users ?? []).map((u) => ({
    user: u.name,
    errorCode: e.code,
    errorMessage: e.message,
    credentialInfos: [],
  })),
});

/** One result per user named, as Kafka (a user in both lists once). */
export const alterUserScramCredentialsError: ErrorAnswerBuilder<
  M.AlterUserScramCredentialsRequest,
  M.AlterUserScramCredentialsResponse
> = (req, _v, e) => ({
  throttleTimeMs: 0,
  results: [...new Set([...req.deletions, ...req.upsertions].map((c) => c.name))].map((user) => ({
    user,
    errorCode: e.code,
    errorMessage: e.message,
  })),
});

export const saslHandshakeError: ErrorAnswerBuilder<M.SaslHandshakeRequest, M.SaslHandshakeResponse> = (
  _req,
  _v,
  e,
) => ({ errorCode: e.code, mechanisms: [] });

/**
 * None: the connection closes. An error code here is an authentication failure, which clients do
 * not retry (kafkajs and librdkafka give up), while a closed connection is reconnected.
 */
export const saslAuthenticateError: ErrorAnswerBuilder<M.SaslAuthenticateRequest, M.SaslAuthenticateResponse> = () =>
  null;

export const apiVersionsError: ErrorAnswerBuilder<M.ApiVersionsRequest, M.ApiVersionsResponse> = (_req, _v, e) => ({
  errorCode: e.code,
  apiKeys: [],
  throttleTimeMs: 0,
});
