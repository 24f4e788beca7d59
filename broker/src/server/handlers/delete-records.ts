// DeleteRecords (key 21): v0-2. Moves the log start offset and deletes the whole batches below
// it; offset -1 means the high watermark. Internal topic names get Kafka's INVALID_TOPIC_EXCEPTION
// (ReplicaManager.deleteRecordsOnLocalLog checks that first).
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { DeleteRecordsRequest, DeleteRecordsResponse } from '../../protocol/messages';
import { StorageError } from '../../storage/storage';
import type { ApiHandler } from '../context';
import { authorizedNames } from './authz';
import { retryIfDiskFull } from '../space-retry';
import { isInternalTopic } from '../topic-names';

export const deleteRecordsHandler: ApiHandler<DeleteRecordsRequest, DeleteRecordsResponse> = {
  apiKey: ApiKey.DeleteRecords,
  minVersion: 0,
  maxVersion: 2,
  async handle(ctx, req) {
    const { broker } = ctx;
    // KafkaApis.handleDeleteRecordsRequest: DELETE on the topic, checked before anything else.
    const deletable = authorizedNames(
      ctx,
      'DELETE',
      'TOPIC',
      req.topics.map((t) => t.name),
    );
    // One partition after another, as before: each deletion is its own storage write.
    const topics = [];
    for (const t of req.topics) {
      const partitions = [];
      for (const p of t.partitions) partitions.push(await deleteOne(t.name, p));
      topics.push({ name: t.name, partitions });
    }
    broker.diskSpace?.invalidate();
    return { throttleTimeMs: 0, topics };

    async function deleteOne(name: string, p: (typeof req.topics)[number]['partitions'][number]) {
      const t = { name };
      if (!deletable.has(t.name))
        return {
          partitionIndex: p.partitionIndex,
          lowWatermark: -1n,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        };
      if (isInternalTopic(t.name))
        return { partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION };
      const offsets = await broker.storage.offsets(t.name, p.partitionIndex);
      if (!offsets)
        return {
          partitionIndex: p.partitionIndex,
          lowWatermark: -1n,
          errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        };
      const target = p.offset === -1n ? offsets.highWatermark : Number(p.offset);
      if (target < 0 || target > offsets.highWatermark) {
        // Kafka sends no low watermark (-1) with an error, not the current one.
        return { partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE };
      }
      try {
        const after = await retryIfDiskFull(broker, () =>
          broker.storage.deleteRecords(t.name, p.partitionIndex, target),
        );
        return {
          partitionIndex: p.partitionIndex,
          lowWatermark: BigInt(after.logStartOffset),
          errorCode: ErrorCode.NONE,
        };
      } catch (err) {
        if (!(err instanceof StorageError)) throw err;
        // As Kafka's ReplicaManager answers a log directory that failed.
        broker.logger.error('DeleteRecords failed', { topic: t.name, partition: p.partitionIndex, err });
        return { partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: ErrorCode.KAFKA_STORAGE_ERROR };
      }
    }
  },
};
