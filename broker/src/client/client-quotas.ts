// DescribeClientQuotas / AlterClientQuotas (KIP-546) for the CLI (`minnow quota`): works against
// minnow or any Kafka broker.
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { AlterClientQuotasResponse, DescribeClientQuotasResponse } from '../protocol/messages';
import type { KafkaClient } from './client';
import { KafkaClientError } from './connection';

/** Entity type ("user", "client-id", "ip") to name; null: the default entity. */
export type QuotaEntity = Record<string, string | null>;

export interface QuotaEntry {
  entity: QuotaEntity;
  values: Record<string, number>;
}

/** DescribeClientQuotas MatchType: 0 exact name, 1 default entity, 2 any named entity. */
export interface QuotaFilterComponent {
  entityType: string;
  matchType: 0 | 1 | 2;
  match: string | null;
}

const toEntity = (pairs: { entityType: string; entityName: string | null }[]): QuotaEntity =>
  Object.fromEntries(pairs.map((p) => [p.entityType, p.entityName]));
const toPairs = (entity: QuotaEntity) =>
  Object.entries(entity).map(([entityType, entityName]) => ({ entityType, entityName }));

export async function describeClientQuotas(
  client: KafkaClient,
  components: QuotaFilterComponent[],
  strict = false,
): Promise<QuotaEntry[]> {
  const conn = await client.connect();
  const v = conn.version(ApiKey.DescribeClientQuotas, 0, 1);
  const res: DescribeClientQuotasResponse = await conn.send(ApiKey.DescribeClientQuotas, v, { components, strict });
  if (res.errorCode !== ErrorCode.NONE)
    throw new KafkaClientError(
      `describe client quotas: ${errorName(res.errorCode)}${res.errorMessage ? `: ${res.errorMessage}` : ''}`,
      res.errorCode,
    );
  return (res.entries ?? []).map((e) => ({
    entity: toEntity(e.entity),
    values: Object.fromEntries(e.values.map((x) => [x.key, x.value])),
  }));
}

export interface QuotaAlteration {
  entity: QuotaEntity;
  set?: Record<string, number>;
  remove?: string[];
}

/** Alters quotas; throws on the first entity the broker refused (after it applied the others). */
export async function alterClientQuotas(
  client: KafkaClient,
  alterations: QuotaAlteration[],
  validateOnly = false,
): Promise<void> {
  const conn = await client.connect();
  const v = conn.version(ApiKey.AlterClientQuotas, 0, 1);
  const res: AlterClientQuotasResponse = await conn.send(ApiKey.AlterClientQuotas, v, {
    entries: alterations.map((a) => ({
      entity: toPairs(a.entity),
      ops: [
        ...Object.entries(a.set ?? {}).map(([key, value]) => ({ key, value, remove: false })),
        ...(a.remove ?? []).map((key) => ({ key, value: 0, remove: true })),
      ],
    })),
    validateOnly,
  });
  const failed = res.entries.find((e) => e.errorCode !== ErrorCode.NONE);
  if (failed)
    throw new KafkaClientError(
      `alter client quotas of ${JSON.stringify(toEntity(failed.entity))}: ${errorName(failed.errorCode)}${failed.errorMessage ? `: ${failed.errorMessage}` : ''}`,
      failed.errorCode,
    );
}
