// What a request gets when its handler fails unexpectedly (it threw instead of answering): a whole
// response with an error code in every error field, as Kafka's KafkaApis.handleError answers
// request.getErrorResponse(e) rather than dropping the connection. Clients then retry as for any
// retriable code; a closed connection instead looks like a dead broker (librdkafka gives up with
// "all brokers down" during a PostgreSQL failover). An answer only echoes the keys of the request,
// so it is never larger than a small multiple of the (bounded) request.
import { LeaseLapsedError } from '../../cluster/cluster';
import { ApiKey } from '../../protocol/api-keys';
import { clusterOf } from '../cluster-answers';
import { ErrorCode } from '../../protocol/error-codes';
import { StorageError } from '../../storage/storage';
import type { RequestContext } from '../context';
import * as admin from './admin';
import * as coordinators from './coordinators';
import * as partitions from './partitions';
import * as shareGroups from './share-groups';
import * as tools from './tools';
import type { AnswerError, ErrorAnswerBuilder } from './types';

/**
 * Which retriable code a StorageError (the database out of reach) becomes:
 * - storage: KAFKA_STORAGE_ERROR (56), Kafka's code for a log it cannot read or write; every client
 *   retries it (kafkajs `retriable`, librdkafka refreshes the leader and retries, Java's
 *   KafkaStorageException is an InvalidMetadataException);
 * - coordinator: COORDINATOR_NOT_AVAILABLE (15), what Kafka's coordinators answer while their log
 *   cannot be written (GroupMetadataManager maps a failed append to it); clients look the
 *   coordinator up again and retry;
 * - metadata: LEADER_NOT_AVAILABLE (5) on each topic, the transient topic state of Metadata.
 */
type Kind = 'storage' | 'coordinator' | 'metadata';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one table for every API's own request/response types
const ANSWERS = new Map<number, { kind: Kind; build: ErrorAnswerBuilder<any, unknown> }>([
  [ApiKey.Produce, { kind: 'storage', build: partitions.produceError }],
  [ApiKey.Fetch, { kind: 'storage', build: partitions.fetchError }],
  [ApiKey.ListOffsets, { kind: 'storage', build: partitions.listOffsetsError }],
  [ApiKey.Metadata, { kind: 'metadata', build: partitions.metadataError }],
  [ApiKey.DeleteRecords, { kind: 'storage', build: partitions.deleteRecordsError }],
  [ApiKey.FindCoordinator, { kind: 'coordinator', build: coordinators.findCoordinatorError }],
  [ApiKey.JoinGroup, { kind: 'coordinator', build: coordinators.joinGroupError }],
  [ApiKey.SyncGroup, { kind: 'coordinator', build: coordinators.syncGroupError }],
  [ApiKey.Heartbeat, { kind: 'coordinator', build: coordinators.heartbeatError }],
  [ApiKey.LeaveGroup, { kind: 'coordinator', build: coordinators.leaveGroupError }],
  [ApiKey.OffsetCommit, { kind: 'coordinator', build: coordinators.offsetCommitError }],
  [ApiKey.OffsetFetch, { kind: 'coordinator', build: coordinators.offsetFetchError }],
  [ApiKey.ListGroups, { kind: 'coordinator', build: coordinators.listGroupsError }],
  [ApiKey.DescribeGroups, { kind: 'coordinator', build: coordinators.describeGroupsError }],
  [ApiKey.DeleteGroups, { kind: 'coordinator', build: coordinators.deleteGroupsError }],
  [ApiKey.OffsetDelete, { kind: 'coordinator', build: coordinators.offsetDeleteError }],
  [ApiKey.ConsumerGroupHeartbeat, { kind: 'coordinator', build: coordinators.consumerGroupHeartbeatError }],
  [ApiKey.ConsumerGroupDescribe, { kind: 'coordinator', build: coordinators.consumerGroupDescribeError }],
  [ApiKey.ShareGroupHeartbeat, { kind: 'coordinator', build: shareGroups.shareGroupHeartbeatError }],
  [ApiKey.ShareGroupDescribe, { kind: 'coordinator', build: shareGroups.shareGroupDescribeError }],
  [ApiKey.ShareFetch, { kind: 'storage', build: shareGroups.shareFetchError }],
  [ApiKey.ShareAcknowledge, { kind: 'storage', build: shareGroups.shareAcknowledgeError }],
  [ApiKey.DescribeShareGroupOffsets, { kind: 'coordinator', build: shareGroups.describeShareGroupOffsetsError }],
  [ApiKey.AlterShareGroupOffsets, { kind: 'coordinator', build: shareGroups.alterShareGroupOffsetsError }],
  [ApiKey.DeleteShareGroupOffsets, { kind: 'coordinator', build: shareGroups.deleteShareGroupOffsetsError }],
  [ApiKey.InitProducerId, { kind: 'coordinator', build: coordinators.initProducerIdError }],
  [ApiKey.AddPartitionsToTxn, { kind: 'coordinator', build: coordinators.addPartitionsToTxnError }],
  [ApiKey.AddOffsetsToTxn, { kind: 'coordinator', build: coordinators.addOffsetsToTxnError }],
  [ApiKey.EndTxn, { kind: 'coordinator', build: coordinators.endTxnError }],
  [ApiKey.TxnOffsetCommit, { kind: 'coordinator', build: coordinators.txnOffsetCommitError }],
  [ApiKey.DescribeTransactions, { kind: 'coordinator', build: coordinators.describeTransactionsError }],
  [ApiKey.ListTransactions, { kind: 'coordinator', build: coordinators.listTransactionsError }],
  [ApiKey.CreateTopics, { kind: 'storage', build: admin.createTopicsError }],
  [ApiKey.DeleteTopics, { kind: 'storage', build: admin.deleteTopicsError }],
  [ApiKey.DescribeConfigs, { kind: 'storage', build: admin.describeConfigsError }],
  [ApiKey.AlterConfigs, { kind: 'storage', build: admin.alterConfigsError }],
  [ApiKey.IncrementalAlterConfigs, { kind: 'storage', build: admin.incrementalAlterConfigsError }],
  [ApiKey.CreatePartitions, { kind: 'storage', build: admin.createPartitionsError }],
  [ApiKey.DescribeCluster, { kind: 'storage', build: admin.describeClusterError }],
  [ApiKey.DescribeAcls, { kind: 'storage', build: admin.describeAclsError }],
  [ApiKey.CreateAcls, { kind: 'storage', build: admin.createAclsError }],
  [ApiKey.DeleteAcls, { kind: 'storage', build: admin.deleteAclsError }],
  [ApiKey.DescribeLogDirs, { kind: 'storage', build: admin.describeLogDirsError }],
  [ApiKey.ElectLeaders, { kind: 'storage', build: admin.electLeadersError }],
  [ApiKey.ListPartitionReassignments, { kind: 'storage', build: admin.listPartitionReassignmentsError }],
  [ApiKey.DescribeClientQuotas, { kind: 'storage', build: admin.describeClientQuotasError }],
  [ApiKey.AlterClientQuotas, { kind: 'storage', build: admin.alterClientQuotasError }],
  [ApiKey.DescribeUserScramCredentials, { kind: 'storage', build: admin.describeUserScramCredentialsError }],
  [ApiKey.AlterUserScramCredentials, { kind: 'storage', build: admin.alterUserScramCredentialsError }],
  [ApiKey.SaslHandshake, { kind: 'storage', build: admin.saslHandshakeError }],
  [ApiKey.SaslAuthenticate, { kind: 'storage', build: admin.saslAuthenticateError }],
  [ApiKey.ApiVersions, { kind: 'storage', build: admin.apiVersionsError }],
  [ApiKey.DescribeTopicPartitions, { kind: 'storage', build: tools.describeTopicPartitionsError }],
  [ApiKey.AlterPartitionReassignments, { kind: 'storage', build: tools.alterPartitionReassignmentsError }],
  [ApiKey.DescribeProducers, { kind: 'storage', build: tools.describeProducersError }],
  [ApiKey.WriteTxnMarkers, { kind: 'storage', build: tools.writeTxnMarkersError }],
]);

/** The API keys that have an error answer (the unit test holds this to every API the broker serves). */
export const API_KEYS_WITH_ERROR_ANSWERS: ReadonlySet<number> = new Set(ANSWERS.keys());

const STORAGE_UNAVAILABLE = 'the broker cannot reach its storage; retry';

/**
 * The code for `err` in `apiKey`'s answer at `version`. Anything but a StorageError is a bug:
 * UNKNOWN_SERVER_ERROR, as Kafka (Errors.forException of an unexpected exception).
 */
export function errorFor(apiKey: number, version: number, err: unknown): AnswerError {
  if (!(err instanceof StorageError)) return { code: ErrorCode.UNKNOWN_SERVER_ERROR, message: null };
  const kind = ANSWERS.get(apiKey)?.kind ?? 'storage';
  if (kind === 'coordinator') return { code: ErrorCode.COORDINATOR_NOT_AVAILABLE, message: STORAGE_UNAVAILABLE };
  if (kind === 'metadata') return { code: ErrorCode.LEADER_NOT_AVAILABLE, message: STORAGE_UNAVAILABLE };
  // KAFKA_STORAGE_ERROR came with Produce v4 and Fetch v6 (KIP-112); older clients get the code
  // that also makes them refresh metadata and retry.
  const old = (apiKey === ApiKey.Produce && version < 4) || (apiKey === ApiKey.Fetch && version < 6);
  return { code: old ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.KAFKA_STORAGE_ERROR, message: STORAGE_UNAVAILABLE };
}

/**
 * The response to send for a request whose handler threw `err`, with the code used; body null when
 * no answer is due (Produce acks=0, SaslAuthenticate) and the connection closes, as Kafka's
 * RequestHandlerHelper.sendErrorOrCloseConnection does for a null error response.
 */
export function errorAnswer(ctx: RequestContext, request: unknown, err: unknown): { body: unknown; code: number } {
  const e = errorFor(ctx.apiKey, ctx.apiVersion, err);
  // Only this broker lost the database (its lease lapsed) and others are alive: its Metadata closes
  // the connection, so clients ask another broker. Answered LEADER_NOT_AVAILABLE, kafkajs retries
  // the same broker until its retries run out (brokerPool.refreshMetadata); answered another code,
  // librdkafka fails the topic's messages. Its other answers stay retriable codes.
  if (
    ctx.apiKey === ApiKey.Metadata &&
    err instanceof LeaseLapsedError &&
    clusterOf(ctx.broker).view().brokers.length > 1
  )
    return { body: null, code: e.code };
  const entry = ANSWERS.get(ctx.apiKey);
  return { body: entry ? entry.build(request, ctx.apiVersion, e, ctx) : null, code: e.code };
}
