// DescribeClientQuotas' filter as Kafka's ClientQuotasImage.describe reads it: per entity type an
// exact name, the default entity, or any named entity; `strict` drops entities with other types.
import { ErrorCode } from '../../protocol/error-codes';
import type { ClientQuotaEntity } from '../../storage/storage';
import { CLIENT_ID, IP, QuotaError, USER } from './quota-entities';

/** DescribeClientQuotasRequest.MatchType */
export const MatchType = { EXACT: 0, DEFAULT: 1, SPECIFIED: 2 } as const;

export interface QuotaFilter {
  /** Entity type -> name it must have (null: the default entity). */
  exact: Map<string, string | null>;
  /** Entity types it must have, with any name. */
  anyOf: Set<string>;
  strict: boolean;
}

const error = (errorCode: number, errorMessage: string): QuotaError => ({ errorCode, errorMessage });

export function parseFilter(
  components: readonly { entityType: string; matchType: number; match: string | null }[],
  strict: boolean,
): QuotaFilter | QuotaError {
  const exact = new Map<string, string | null>();
  const anyOf = new Set<string>();
  for (const c of components) {
    if (c.entityType === '') return error(ErrorCode.INVALID_REQUEST, 'Invalid empty entity type.');
    if (exact.has(c.entityType) || anyOf.has(c.entityType))
      return error(
        ErrorCode.INVALID_REQUEST,
        `Entity type ${c.entityType} cannot appear more than once in the filter.`,
      );
    if (c.entityType !== IP && c.entityType !== USER && c.entityType !== CLIENT_ID)
      return error(ErrorCode.UNSUPPORTED_VERSION, `Unsupported entity type ${c.entityType}`);
    switch (c.matchType) {
      case MatchType.EXACT:
        if (c.match === null)
          return error(ErrorCode.INVALID_REQUEST, 'Request specified MATCH_TYPE_EXACT, but set match string to null.');
        exact.set(c.entityType, c.match);
        break;
      case MatchType.DEFAULT:
        if (c.match !== null)
          return error(
            ErrorCode.INVALID_REQUEST,
            'Request specified MATCH_TYPE_DEFAULT, but also specified a match string.',
          );
        exact.set(c.entityType, null);
        break;
      case MatchType.SPECIFIED:
        if (c.match !== null)
          return error(
            ErrorCode.INVALID_REQUEST,
            'Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.',
          );
        anyOf.add(c.entityType);
        break;
      default:
        return error(ErrorCode.INVALID_REQUEST, `Unknown match type ${c.matchType}`);
    }
  }
  const has = (t: string) => exact.has(t) || anyOf.has(t);
  if (has(IP) && (has(USER) || has(CLIENT_ID)))
    return error(
      ErrorCode.INVALID_REQUEST,
      'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
    );
  return { exact, anyOf, strict };
}

/** ClientQuotasImage.matches. */
export function matchesFilter(entity: ClientQuotaEntity, f: QuotaFilter): boolean {
  const types = Object.keys(entity);
  if (f.strict && types.length !== f.exact.size + f.anyOf.size) return false;
  for (const [type, name] of f.exact) if (!(type in entity) || entity[type] !== name) return false;
  for (const type of f.anyOf) if (!(type in entity)) return false;
  return true;
}
