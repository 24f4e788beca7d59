// CreatePartitions (key 37): v0-3 (librdkafka sends v0 only). Grows a topic; never shrinks it.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { CreatePartitionsRequest, CreatePartitionsResponse } from '../../protocol/messages';
import type { ApiHandler } from '../context';

const MAX_PARTITIONS = 10_000;

export const createPartitionsHandler: ApiHandler<CreatePartitionsRequest, CreatePartitionsResponse> = {
  apiKey: ApiKey.CreatePartitions,
  minVersion: 0,
  maxVersion: 3,
  handle({ broker }, req) {
    const results = req.topics.map((t) => {
      const fail = (errorCode: number, errorMessage: string) => ({ name: t.name, errorCode, errorMessage });
      const topic = broker.storage.topic(t.name);
      if (!topic) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `no topic named ${t.name}`);
      if (t.count <= topic.partitionCount) {
        return fail(ErrorCode.INVALID_PARTITIONS, `topic ${t.name} has ${topic.partitionCount} partitions; the new count ${t.count} must be larger`);
      }
      if (t.count > MAX_PARTITIONS) return fail(ErrorCode.INVALID_PARTITIONS, `${t.count} partitions: the limit is ${MAX_PARTITIONS}`);
      const nodeId = broker.identity.nodeId;
      if (t.assignments && t.assignments.some((a) => a.brokerIds.length !== 1 || a.brokerIds[0] !== nodeId)) {
        return fail(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `every partition must be assigned to broker ${nodeId} alone`);
      }
      if (!req.validateOnly) {
        broker.storage.createPartitions(t.name, t.count);
        broker.logger.info('added partitions', { topic: t.name, from: topic.partitionCount, to: t.count });
      }
      return { name: t.name, errorCode: ErrorCode.NONE, errorMessage: null };
    });
    return { throttleTimeMs: 0, results };
  },
};
