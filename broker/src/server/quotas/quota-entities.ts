// Client quota entities and keys as Kafka defines them (KIP-546; QuotaConfig,
// ClientQuotaControlManager): which entity types combine, which keys each takes, which values are
// valid, and the errors (INVALID_REQUEST with Kafka's messages) for anything else.
import { isIP } from 'node:net';
import { ErrorCode } from '../../protocol/error-codes';
import type { ClientQuotaChange, ClientQuotaEntity } from '../../storage/storage';

export const USER = 'user';
export const CLIENT_ID = 'client-id';
export const IP = 'ip';

export const PRODUCER_BYTE_RATE = 'producer_byte_rate';
export const CONSUMER_BYTE_RATE = 'consumer_byte_rate';
export const REQUEST_PERCENTAGE = 'request_percentage';
/** KIP-599: partitions created or deleted per second (controller-mutation-quotas.ts). */
export const CONTROLLER_MUTATION_RATE = 'controller_mutation_rate';
export const CONNECTION_CREATION_RATE = 'connection_creation_rate';

type KeyType = 'long' | 'double' | 'int';

/** QuotaConfig.userAndClientQuotaConfigs(): the keys of user and client-id entities. */
const USER_CLIENT_KEYS: Readonly<Record<string, KeyType>> = {
  [PRODUCER_BYTE_RATE]: 'long',
  [CONSUMER_BYTE_RATE]: 'long',
  [REQUEST_PERCENTAGE]: 'double',
  [CONTROLLER_MUTATION_RATE]: 'double',
};
/** QuotaConfig.ipConfigs(): the key of ip entities. */
const IP_KEYS: Readonly<Record<string, KeyType>> = { [CONNECTION_CREATION_RATE]: 'int' };

export interface QuotaError {
  errorCode: number;
  errorMessage: string;
}

const invalid = (errorMessage: string): QuotaError => ({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage });

/** `user=alice, client-id=<default>`: an entity as messages name it. */
export function describeEntity(entity: ClientQuotaEntity): string {
  const parts = Object.entries(entity).map(([t, n]) => `${t}=${n === null ? '<default>' : n}`);
  return parts.length > 0 ? parts.join(', ') : '(empty entity)';
}

/** The wire form of an entity (AlterClientQuotas / DescribeClientQuotas EntityData), types sorted. */
export function entityData(entity: ClientQuotaEntity): { entityType: string; entityName: string | null }[] {
  return Object.keys(entity)
    .sort()
    .map((entityType) => ({ entityType, entityName: entity[entityType] ?? null }));
}

/**
 * Checks an entity's types and names (ClientQuotaControlManager.validateEntity and
 * configKeysForEntityType) and returns it as a map, or Kafka's error.
 */
export function validateEntity(
  pairs: readonly { entityType: string; entityName: string | null }[],
): { entity: ClientQuotaEntity; keys: Readonly<Record<string, KeyType>> } | QuotaError {
  if (pairs.length === 0) return invalid('Invalid empty client quota entity');
  const entity: Record<string, string | null> = {};
  for (const { entityType, entityName } of pairs) {
    if (entityType in entity) return invalid(`Invalid client quota entity, duplicate entity entry ${entityType}`);
    if (entityType !== USER && entityType !== CLIENT_ID && entityType !== IP)
      return invalid(`Unhandled client quota entity type: ${entityType}`);
    if (entityName !== null && entityName === '') return invalid(`Empty ${entityType} not supported`);
    entity[entityType] = entityName;
  }
  if (IP in entity) {
    if (USER in entity || CLIENT_ID in entity)
      return invalid('Invalid quota entity combination, IP entity should not be combined with User or ClientId');
    const ip = entity[IP];
    // Kafka also accepts a host name it can resolve; minnow takes IP addresses only (no DNS in the request path).
    if (ip !== null && ip !== undefined && isIP(ip) === 0)
      return invalid(`${ip} is not a valid IP address; give an IPv4 or IPv6 address, or the default ip entity`);
    return { entity, keys: IP_KEYS };
  }
  return { entity, keys: USER_CLIENT_KEYS };
}

/** ClientQuotaControlManager.validateQuotaKeyValue: a known key and a value its type can hold. */
export function validateKeyValue(
  keys: Readonly<Record<string, KeyType>>,
  key: string,
  value: number,
): QuotaError | null {
  const type = keys[key];
  if (type === undefined) return invalid(`Invalid configuration key ${key}`);
  if (!(value > 0)) return invalid(`Quota ${key} must be greater than 0`);
  if (type === 'double') return null;
  const max = type === 'int' ? 2 ** 31 - 1 : 2 ** 63 - 1;
  if (value > max)
    return invalid(`Proposed value for ${key} is too large for ${type === 'int' ? 'an INT' : 'a LONG'}.`);
  if (Math.abs(value % 1) > 1e-6) return invalid(`${key} cannot be a fractional value.`);
  return null;
}

export interface AlterOp {
  key: string;
  value: number;
  remove: boolean;
}

/** One AlterClientQuotas entry checked: the change to store, or the error to answer for its entity. */
export function validateAlteration(
  pairs: readonly { entityType: string; entityName: string | null }[],
  ops: readonly AlterOp[],
): ClientQuotaChange | QuotaError {
  const checked = validateEntity(pairs);
  if ('errorCode' in checked) return checked;
  const set: Record<string, number> = {};
  const remove: string[] = [];
  const seen = new Set<string>();
  for (const op of ops) {
    if (seen.has(op.key))
      return invalid(
        `Duplicate quota key ${op.key} not updating quota for this entity ${describeEntity(checked.entity)}`,
      );
    seen.add(op.key);
    if (op.remove) {
      remove.push(op.key); // Kafka removes any key without checking it
      continue;
    }
    const error = validateKeyValue(checked.keys, op.key, op.value);
    if (error) return error;
    set[op.key] = op.value;
  }
  return { entity: checked.entity, set, remove };
}
