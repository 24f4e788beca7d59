// One text form of a client quota entity, so engines key and compare entities the same way:
// the JSON of its [type, name] pairs sorted by type (null name: the default entity).
import type { ClientQuotaEntity } from './storage';

export function clientQuotaEntityKey(entity: ClientQuotaEntity): string {
  const pairs = Object.keys(entity)
    .sort()
    .map((type) => [type, entity[type] ?? null]);
  return JSON.stringify(pairs);
}

export function clientQuotaEntityFromKey(key: string): ClientQuotaEntity {
  const out: Record<string, string | null> = {};
  for (const [type, name] of JSON.parse(key) as [string, string | null][]) out[type] = name;
  return out;
}
