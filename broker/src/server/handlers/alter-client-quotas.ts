// AlterClientQuotas (key 49, KIP-546): sets and removes quotas of user / client-id / ip entities
// (null name: the default entity), each entry validated on its own as Kafka's
// ClientQuotaControlManager does; the valid ones are stored in one transaction and take effect
// at once. validate_only checks without storing. `kafka-configs --alter --entity-type clients`.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { AlterClientQuotasRequest, AlterClientQuotasResponse } from '../../protocol/messages';
import { clientQuotaEntityKey } from '../../storage/client-quota-key';
import { ClientQuotaChange, StorageError } from '../../storage/storage';
import type { ApiHandler } from '../context';
import { mayOnCluster } from './authz';
import { describeEntity, validateAlteration } from '../quotas/quota-entities';

type Entry = AlterClientQuotasResponse['entries'][number];

export const alterClientQuotasHandler: ApiHandler<AlterClientQuotasRequest, AlterClientQuotasResponse> = {
  apiKey: ApiKey.AlterClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const { broker } = ctx;
    // KafkaApis.handleAlterClientQuotasRequest: ALTER_CONFIGS on the cluster, else every entry fails.
    if (!mayOnCluster(ctx, 'ALTER_CONFIGS'))
      return {
        throttleTimeMs: 0,
        entries: req.entries.map((e) => ({
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          errorMessage: 'Cluster authorization failed: altering client quotas needs ALTER_CONFIGS on the cluster.',
          entity: e.entity.map((d) => ({ entityType: d.entityType, entityName: d.entityName })),
        })),
      };
    const answers: Entry[] = [];
    const changes: ClientQuotaChange[] = [];
    const seen = new Map<string, Entry>();
    for (const e of req.entries) {
      const wire = e.entity.map((d) => ({ entityType: d.entityType, entityName: d.entityName }));
      const checked = validateAlteration(wire, e.ops);
      if ('errorCode' in checked) {
        answers.push({ ...checked, entity: wire });
        continue;
      }
      const key = clientQuotaEntityKey(checked.entity);
      const earlier = seen.get(key);
      if (earlier) {
        // Kafka answers one entity once: a second entry for it is refused, and so is the first.
        const dup = {
          errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: `Ignoring duplicate entity ${describeEntity(checked.entity)}`,
        };
        Object.assign(earlier, dup);
        const i = changes.findIndex((c) => clientQuotaEntityKey(c.entity) === key);
        if (i >= 0) changes.splice(i, 1);
        continue;
      }
      const answer: Entry = { errorCode: ErrorCode.NONE, errorMessage: null, entity: wire };
      seen.set(key, answer);
      answers.push(answer);
      changes.push(checked);
    }
    if (!req.validateOnly && changes.length > 0) {
      try {
        await broker.storage.alterClientQuotas(changes);
      } catch (err) {
        // A full disk is each entity's KAFKA_STORAGE_ERROR (nothing stored), not a closed connection.
        if (!(err instanceof StorageError)) throw err;
        const failed = {
          errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
          errorMessage: `storing the quotas failed: ${err.message}`,
        };
        for (const a of seen.values()) if (a.errorCode === ErrorCode.NONE) Object.assign(a, failed);
        return { throttleTimeMs: 0, entries: answers };
      }
      await broker.quotas.reload(broker.storage);
      broker.logger.info('client quotas altered', {
        entities: changes.map((c) => ({ entity: describeEntity(c.entity), set: c.set, remove: c.remove })),
      });
    }
    return { throttleTimeMs: 0, entries: answers };
  },
};
