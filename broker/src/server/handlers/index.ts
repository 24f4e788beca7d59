// The API registry: every handler the broker serves, by API key. ApiVersions advertises exactly
// these ranges.
import type { ApiHandler } from '../context';
import { addOffsetsToTxnHandler } from './add-offsets-to-txn';
import { addPartitionsToTxnHandler } from './add-partitions-to-txn';
import { alterClientQuotasHandler } from './alter-client-quotas';
import { alterPartitionReassignmentsHandler } from './alter-partition-reassignments';
import { alterConfigsHandler, incrementalAlterConfigsHandler } from './alter-configs';
import { apiVersionsHandler } from './api-versions';
import { consumerGroupHeartbeatHandler } from './consumer-group-heartbeat';
import { consumerGroupDescribeHandler } from './consumer-group-describe';
import { shareGroupHeartbeatHandler } from './share-group-heartbeat';
import { shareGroupDescribeHandler } from './share-group-describe';
import { shareFetchHandler } from './share-fetch';
import { shareAcknowledgeHandler } from './share-acknowledge';
import { describeShareGroupOffsetsHandler } from './describe-share-group-offsets';
import { alterShareGroupOffsetsHandler } from './alter-share-group-offsets';
import { deleteShareGroupOffsetsHandler } from './delete-share-group-offsets';
import { createAclsHandler } from './create-acls';
import { createPartitionsHandler } from './create-partitions';
import { createTopicsHandler } from './create-topics';
import { deleteAclsHandler } from './delete-acls';
import { deleteRecordsHandler } from './delete-records';
import { deleteTopicsHandler } from './delete-topics';
import { describeAclsHandler } from './describe-acls';
import { describeClientQuotasHandler } from './describe-client-quotas';
import { describeClusterHandler } from './describe-cluster';
import { describeConfigsHandler } from './describe-configs';
import { describeLogDirsHandler } from './describe-log-dirs';
import { describeProducersHandler } from './describe-producers';
import { describeTopicPartitionsHandler } from './describe-topic-partitions';
import { describeTransactionsHandler } from './describe-transactions';
import { electLeadersHandler } from './elect-leaders';
import { endTxnHandler } from './end-txn';
import { fetchHandler } from './fetch';
import { groupHandlers } from './groups';
import { initProducerIdHandler } from './init-producer-id';
import { listOffsetsHandler } from './list-offsets';
import { listPartitionReassignmentsHandler } from './list-partition-reassignments';
import { listTransactionsHandler } from './list-transactions';
import { metadataHandler } from './metadata';
import { produceHandler } from './produce';
import { saslAuthenticateHandler } from './sasl-authenticate';
import { saslHandshakeHandler } from './sasl-handshake';
import { txnOffsetCommitHandler } from './txn-offset-commit';
import { writeTxnMarkersHandler } from './write-txn-markers';
import { describeUserScramCredentialsHandler } from './describe-user-scram-credentials';
import { alterUserScramCredentialsHandler } from './alter-user-scram-credentials';

export function createHandlers(): ReadonlyMap<number, ApiHandler> {
  const handlers = new Map<number, ApiHandler>();
  const add = (h: ApiHandler) => {
    if (handlers.has(h.apiKey)) throw new Error(`two handlers for API key ${h.apiKey}`);
    handlers.set(h.apiKey, h);
  };
  [
    produceHandler,
    fetchHandler,
    listOffsetsHandler,
    metadataHandler,
    createTopicsHandler,
    deleteTopicsHandler,
    deleteRecordsHandler,
    initProducerIdHandler,
    describeConfigsHandler,
    alterConfigsHandler,
    createPartitionsHandler,
    incrementalAlterConfigsHandler,
    describeClusterHandler,
    describeTopicPartitionsHandler,
    // Admin APIs answered with Kafka's error or empty result for what one broker without ACLs has.
    describeAclsHandler,
    createAclsHandler,
    deleteAclsHandler,
    describeLogDirsHandler,
    electLeadersHandler,
    alterPartitionReassignmentsHandler,
    listPartitionReassignmentsHandler,
    // Transactions (src/transactions, KIP-98).
    addPartitionsToTxnHandler,
    addOffsetsToTxnHandler,
    txnOffsetCommitHandler,
    endTxnHandler,
    describeTransactionsHandler,
    listTransactionsHandler,
    describeProducersHandler,
    writeTxnMarkersHandler,
    ...groupHandlers,
    consumerGroupHeartbeatHandler,
    consumerGroupDescribeHandler,
    // Share groups (src/groups/share, KIP-932).
    shareGroupHeartbeatHandler,
    shareGroupDescribeHandler,
    shareFetchHandler,
    shareAcknowledgeHandler,
    describeShareGroupOffsetsHandler,
    alterShareGroupOffsetsHandler,
    deleteShareGroupOffsetsHandler,
    describeClientQuotasHandler,
    alterClientQuotasHandler,
    // SASL (server/sasl/) and its users.
    saslHandshakeHandler,
    saslAuthenticateHandler,
    describeUserScramCredentialsHandler,
    alterUserScramCredentialsHandler,
  ].forEach(add);
  add(apiVersionsHandler(handlers));
  return handlers;
}
