// Kafka's StandardAuthorizer rules (metadata/.../authorizer/StandardAuthorizerData.java) over the
// stored ACL bindings:
// - a super user (SUPER_USERS) may do anything;
// - the ACLs that apply to a resource are its LITERAL ones, the LITERAL '*' of its type and every
//   PREFIXED one its name starts with; of those, an ACL counts if its principal is the session's
//   or User:*, and its host is the client's IP or '*';
// - a DENY counts for its operation or ALL only; an ALLOW for its operation, ALL, or an operation
//   it implies (READ/WRITE/DELETE/ALTER imply DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS);
// - any DENY wins; else any ALLOW allows; else a resource some ACL names is denied, and one no ACL
//   names follows ALLOW_EVERYONE_IF_NO_ACL_FOUND.
// Decisions are cached per connection (operation, resource) until the ACLs or the connection's
// principal change, so the Produce/Fetch check is one Map lookup (broker/bench/authorizer.bench.ts).
import type { AclBinding, AclOperationName, PatternTypeName, ResourceTypeName } from '../protocol/acl';
import { CLUSTER_RESOURCE_NAME, WILDCARD, WILDCARD_PRINCIPAL } from '../protocol/acl';
import type { Storage } from '../storage/storage';
import type { Session } from './session';
import { principalToString } from './session';

export type AuthorizableResourceType = Extract<ResourceTypeName, 'TOPIC' | 'GROUP' | 'CLUSTER' | 'TRANSACTIONAL_ID'>;

export interface AuthorizerOptions {
  /** `User:admin` strings. */
  superUsers: readonly string[];
  allowEveryoneIfNoAclFound: boolean;
}

const IMPLIES_DESCRIBE: ReadonlySet<AclOperationName> = new Set(['DESCRIBE', 'READ', 'WRITE', 'DELETE', 'ALTER']);
const IMPLIES_DESCRIBE_CONFIGS: ReadonlySet<AclOperationName> = new Set(['DESCRIBE_CONFIGS', 'ALTER_CONFIGS']);

/** Decisions one connection keeps before its cache starts over (a short string key and a boolean each). */
const MAX_CACHED_DECISIONS = 256;

interface SessionCache {
  principalObject: Session['principal'];
  principal: string;
  host: string;
  generation: number;
  superUser: boolean;
  decisions: Map<string, boolean>;
}

/** The ACLs of one resource type, indexed for lookup by resource name. */
interface TypeIndex {
  literal: Map<string, AclBinding[]>;
  prefixed: Map<string, AclBinding[]>;
  /** Lengths of the PREFIXED names, longest first: a name's prefixes to look up. */
  prefixLengths: number[];
}

/** Whether one ACL, already known to apply to the resource, allows or denies (undefined: neither). */
function verdict(acl: AclBinding, principal: string, host: string, operation: AclOperationName): boolean | undefined {
  if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) return undefined;
  if (acl.host !== WILDCARD && acl.host !== host) return undefined;
  if (acl.operation !== 'ALL' && acl.operation !== operation) {
    // Implied operations count for ALLOW only: a DENY of READ does not deny DESCRIBE.
    if (acl.permissionType !== 'ALLOW') return undefined;
    if (operation === 'DESCRIBE' && !IMPLIES_DESCRIBE.has(acl.operation)) return undefined;
    if (operation === 'DESCRIBE_CONFIGS' && !IMPLIES_DESCRIBE_CONFIGS.has(acl.operation)) return undefined;
    if (operation !== 'DESCRIBE' && operation !== 'DESCRIBE_CONFIGS') return undefined;
  }
  return acl.permissionType === 'ALLOW';
}

export class Authorizer {
  private readonly superUsers: ReadonlySet<string>;
  private readonly allowIfNoAcl: boolean;
  private index = new Map<ResourceTypeName, TypeIndex>();
  private bindings: AclBinding[] = [];
  /** Per connection: its principal's decisions (a WeakMap, so a closed connection's go with it). */
  private readonly sessions = new WeakMap<Session, SessionCache>();
  /** Bumped by reload(): caches of an older generation are stale. */
  private generation = 0;
  /** reload() calls started, and the latest whose read was applied (an older read never overwrites a newer one). */
  private reloadsStarted = 0;
  private reloadApplied = 0;

  constructor(
    private readonly storage: Storage,
    options: AuthorizerOptions,
  ) {
    this.superUsers = new Set(options.superUsers);
    this.allowIfNoAcl = options.allowEveryoneIfNoAclFound;
  }

  /** An authorizer with the stored bindings loaded. */
  static async open(storage: Storage, options: AuthorizerOptions): Promise<Authorizer> {
    const a = new Authorizer(storage, options);
    await a.reload();
    return a;
  }

  get allowEveryoneIfNoAclFound(): boolean {
    return this.allowIfNoAcl;
  }

  /** Re-reads the bindings from storage; call after every change to them. */
  async reload(): Promise<void> {
    const seq = ++this.reloadsStarted;
    const bindings = await this.storage.listAcls();
    if (seq < this.reloadApplied) return;
    this.reloadApplied = seq;
    this.bindings = bindings;
    const index = new Map<ResourceTypeName, TypeIndex>();
    for (const b of this.bindings) {
      let t = index.get(b.resourceType);
      if (!t) index.set(b.resourceType, (t = { literal: new Map(), prefixed: new Map(), prefixLengths: [] }));
      const byName = b.patternType === 'PREFIXED' ? t.prefixed : t.literal;
      const list = byName.get(b.resourceName);
      if (list) list.push(b);
      else byName.set(b.resourceName, [b]);
    }
    for (const t of index.values()) {
      t.prefixLengths = [...new Set([...t.prefixed.keys()].map((k) => k.length))].sort((a, b) => b - a);
    }
    this.index = index;
    this.generation++;
  }

  /** Every stored binding (the authorizer's copy, for DescribeAcls / DeleteAcls filters). */
  acls(): readonly AclBinding[] {
    return this.bindings;
  }

  /** May the session's principal, from its address, do `operation` on this resource? */
  authorize(
    session: Session,
    operation: AclOperationName,
    resourceType: AuthorizableResourceType,
    resourceName: string,
  ): boolean {
    const cache = this.cacheOf(session);
    if (cache.superUser) return true;
    if (this.bindings.length === 0) return this.allowIfNoAcl;
    const key = `${operation}\u0000${resourceType}\u0000${resourceName}`;
    const cached = cache.decisions.get(key);
    if (cached !== undefined) return cached;
    const decision = this.decide(cache.principal, session.clientAddress, operation, resourceType, resourceName);
    if (cache.decisions.size >= MAX_CACHED_DECISIONS) cache.decisions.clear();
    cache.decisions.set(key, decision);
    return decision;
  }

  /**
   * The session's decisions, valid while its principal object, its address and the ACLs are the
   * ones they were made for (SASL re-authentication replaces the principal object).
   */
  private cacheOf(session: Session): SessionCache {
    let c = this.sessions.get(session);
    if (
      !c ||
      c.principalObject !== session.principal ||
      c.host !== session.clientAddress ||
      c.generation !== this.generation
    ) {
      const principal = principalToString(session.principal);
      c = {
        principalObject: session.principal,
        principal,
        host: session.clientAddress,
        generation: this.generation,
        superUser: this.superUsers.has(principal),
        decisions: new Map(),
      };
      this.sessions.set(session, c);
    }
    return c;
  }

  /** authorize() on the one CLUSTER resource. */
  authorizeCluster(session: Session, operation: AclOperationName): boolean {
    return this.authorize(session, operation, 'CLUSTER', CLUSTER_RESOURCE_NAME);
  }

  private decide(
    principal: string,
    host: string,
    operation: AclOperationName,
    resourceType: ResourceTypeName,
    name: string,
  ): boolean {
    const t = this.index.get(resourceType);
    if (!t) return this.allowIfNoAcl;
    const applying: (AclBinding[] | undefined)[] = [t.literal.get(name), t.literal.get(WILDCARD)];
    for (const len of t.prefixLengths) if (len <= name.length) applying.push(t.prefixed.get(name.slice(0, len)));
    let found = false;
    let allowed = false;
    for (const list of applying) {
      if (!list) continue;
      found = true;
      for (const acl of list) {
        const v = verdict(acl, principal, host, operation);
        if (v === false) return false;
        if (v === true) allowed = true;
      }
    }
    return allowed || (!found && this.allowIfNoAcl);
  }

  /**
   * Kafka's Authorizer.authorizeByResourceType: may the principal do `operation` on at least one
   * resource of the type? (InitProducerId without a transactional id: WRITE on any topic.) Allowed
   * if a resource named "hardcode" would be (super users; no ACLs with ALLOW_EVERYONE...), or some
   * ALLOW pattern for the operation is not cancelled by a DENY (exact operation or ALL, no implied
   * ones) on the same literal name or a prefix of it; a DENY on LITERAL '*' denies outright.
   */
  authorizeByResourceType(
    session: Session,
    operation: AclOperationName,
    resourceType: AuthorizableResourceType,
  ): boolean {
    if (this.authorize(session, operation, resourceType, 'hardcode')) return true;
    const principal = principalToString(session.principal);
    const deny: Record<PatternTypeName, Set<string>> = emptyPatternSets();
    const allow: Record<PatternTypeName, Set<string>> = emptyPatternSets();
    let wildcardAllow = false;
    for (const b of this.bindings) {
      if (b.resourceType !== resourceType) continue;
      if (b.host !== session.clientAddress && b.host !== WILDCARD) continue;
      if (b.principal !== principal && b.principal !== WILDCARD_PRINCIPAL) continue;
      if (b.operation !== operation && b.operation !== 'ALL') continue;
      if (b.permissionType === 'DENY') {
        if (b.patternType === 'LITERAL' && b.resourceName === WILDCARD) return false;
        deny[b.patternType].add(b.resourceName);
      } else if (b.patternType === 'LITERAL' && b.resourceName === WILDCARD) wildcardAllow = true;
      else allow[b.patternType].add(b.resourceName);
    }
    if (wildcardAllow) return true;
    const deniedByPrefix = (name: string) => {
      for (let i = 1; i <= name.length; i++) if (deny.PREFIXED.has(name.slice(0, i))) return true;
      return false;
    };
    for (const name of allow.LITERAL) if (!deny.LITERAL.has(name) && !deniedByPrefix(name)) return true;
    for (const name of allow.PREFIXED) if (!deniedByPrefix(name)) return true;
    return false;
  }
}

function emptyPatternSets(): Record<PatternTypeName, Set<string>> {
  return { UNKNOWN: new Set(), ANY: new Set(), MATCH: new Set(), LITERAL: new Set(), PREFIXED: new Set() };
}
