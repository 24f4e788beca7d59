// WriteTxnMarkers (key 27): v0-1. In Kafka the transaction coordinator sends it to partition
// leaders; an operator's admin client sends it too: kafka-transactions abort (Admin.abortTransaction,
// KIP-664) writes an ABORT marker for a hanging transaction, one a partition has open but no
// coordinator knows of. minnow's coordinator writes its own markers inside EndTxn's storage
// transaction and never sends this; here it serves the operator. Each marker goes to each partition
// named (storage writeTxnMarker): it ends the producer's open transaction there (an abort records
// the aborted range, so read_committed consumers skip it) and moves the last stable offset, waking
// the fetches waiting on the partition. The transactional id's coordinator state is left as it is,
// as Kafka's is. As KafkaApis.handleWriteTxnMarkersRequest: CLUSTER_ACTION on the cluster, else
// CLUSTER_AUTHORIZATION_FAILED on every partition; an epoch older than the producer's there is
// INVALID_PRODUCER_EPOCH; an unknown partition UNKNOWN_TOPIC_OR_PARTITION.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../../protocol/messages';
import { partitionKey } from '../fetch-waiters';
import type { ApiHandler } from '../context';
import { mayOnCluster } from './authz';

export const writeTxnMarkersHandler: ApiHandler<WriteTxnMarkersRequest, WriteTxnMarkersResponse> = {
  apiKey: ApiKey.WriteTxnMarkers,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const { broker } = ctx;
    const allowed = mayOnCluster(ctx, 'CLUSTER_ACTION');
    const markers: WriteTxnMarkersResponse['markers'] = [];
    for (const m of req.markers) {
      const producerId = Number(m.producerId);
      const topics: WriteTxnMarkersResponse['markers'][number]['topics'] = [];
      for (const t of m.topics) {
        const partitions = [];
        for (const partitionIndex of t.partitionIndexes) {
          if (!allowed) {
            partitions.push({ partitionIndex, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED });
            continue;
          }
          const r = await broker.storage.writeTxnMarker(
            t.name,
            partitionIndex,
            producerId,
            m.producerEpoch,
            m.transactionResult,
            broker.now(),
          );
          if (r.errorCode === ErrorCode.NONE) {
            broker.fetchWaiters.notify(partitionKey(t.name, partitionIndex));
            broker.logger.info('wrote a transaction marker for an operator', {
              topic: t.name,
              partition: partitionIndex,
              producerId,
              producerEpoch: m.producerEpoch,
              marker: m.transactionResult ? 'COMMIT' : 'ABORT',
              offset: r.offset,
              clientId: ctx.clientId,
            });
          } else {
            broker.logger.warn('transaction marker refused', {
              topic: t.name,
              partition: partitionIndex,
              reason: r.message,
            });
          }
          partitions.push({ partitionIndex, errorCode: r.errorCode });
        }
        topics.push({ name: t.name, partitions });
      }
      markers.push({ producerId: m.producerId, topics });
    }
    return { markers };
  },
};
