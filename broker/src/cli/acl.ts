// `minnow acl add|list|delete`: ACLs over the Kafka protocol (CreateAcls, DescribeAcls,
// DeleteAcls), with kafka-acls' flags: add creates every principal x host x operation x resource
// combination; list and delete take the same flags as filters.
import { bootstrapOf, parse, UsageError } from '../args';
import { createAcls, deleteAcls, describeAcls } from '../client/acls';
import { KafkaClient } from '../client/client';
import { AUTH_USAGE, connectOptionsOf } from '../client-auth';
import { CLUSTER_RESOURCE_NAME, OPERATIONS, parsePrincipal } from '../protocol/acl';
import type {
  AclBinding,
  AclBindingFilter,
  AclOperationName,
  PatternTypeName,
  PermissionTypeName,
  ResourceTypeName,
} from '../protocol/acl';

const USAGE = `usage:
  minnow acl add    (--allow-principal P | --deny-principal P)... --operation OP... RESOURCE... [--allow-host IP | --deny-host IP]... [--resource-pattern-type literal|prefixed]
  minnow acl list   [RESOURCE...] [--principal P] [--resource-pattern-type any|match|literal|prefixed]   (JSON)
  minnow acl delete RESOURCE... [--allow-principal P | --deny-principal P]... [--operation OP]... [--resource-pattern-type ...]
RESOURCE: --topic NAME | --group NAME | --transactional-id ID | --cluster   (NAME may be * for every one)
P: TYPE:NAME, e.g. User:alice or User:*; hosts default to * (any)
OP: ${Object.keys(OPERATIONS)
  .filter((o) => o !== 'UNKNOWN' && o !== 'ANY')
  .join(', ')} (case-insensitive)
options: --bootstrap-server HOST:PORT (default localhost:9092)
${AUTH_USAGE}`;

const OPTIONS = {
  'allow-principal': { type: 'string', multiple: true },
  'deny-principal': { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  'deny-host': { type: 'string', multiple: true },
  principal: { type: 'string', multiple: true },
  operation: { type: 'string', multiple: true },
  topic: { type: 'string', multiple: true },
  group: { type: 'string', multiple: true },
  'transactional-id': { type: 'string', multiple: true },
  cluster: { type: 'boolean' },
  'resource-pattern-type': { type: 'string' },
} as const;

type Values = Record<string, unknown>;
const list = (v: Values, name: string) => (v[name] as string[] | undefined) ?? [];

function resources(v: Values): { type: ResourceTypeName; name: string }[] {
  return [
    ...list(v, 'topic').map((name) => ({ type: 'TOPIC' as const, name })),
    ...list(v, 'group').map((name) => ({ type: 'GROUP' as const, name })),
    ...list(v, 'transactional-id').map((name) => ({ type: 'TRANSACTIONAL_ID' as const, name })),
    ...(v.cluster ? [{ type: 'CLUSTER' as const, name: CLUSTER_RESOURCE_NAME }] : []),
  ];
}

function principals(v: Values, flag: string): string[] {
  return list(v, flag).map((p) => {
    if (!parsePrincipal(p)) throw new UsageError(`--${flag} ${p}: expected TYPE:NAME, e.g. User:alice`);
    return p;
  });
}

function operations(v: Values): AclOperationName[] {
  return list(v, 'operation').map((o) => {
    const name = o.toUpperCase().replace(/-/g, '_');
    if (!(name in OPERATIONS) || name === 'UNKNOWN' || name === 'ANY')
      throw new UsageError(`--operation ${o}: not an ACL operation\n\n${USAGE}`);
    return name as AclOperationName;
  });
}

function patternType(v: Values, fallback: PatternTypeName, allowed: readonly PatternTypeName[]): PatternTypeName {
  const raw = v['resource-pattern-type'] as string | undefined;
  if (raw === undefined) return fallback;
  const name = raw.toUpperCase() as PatternTypeName;
  if (!allowed.includes(name))
    throw new UsageError(`--resource-pattern-type ${raw}: expected ${allowed.join('|').toLowerCase()}`);
  return name;
}

/** The (permission, principal, host) entries the principal and host flags name. */
function entries(v: Values): { permissionType: PermissionTypeName; principal: string; host: string }[] {
  const hosts = (flag: string) => (list(v, flag).length > 0 ? list(v, flag) : ['*']);
  return [
    ...principals(v, 'allow-principal').flatMap((principal) =>
      hosts('allow-host').map((host) => ({ permissionType: 'ALLOW' as const, principal, host })),
    ),
    ...principals(v, 'deny-principal').flatMap((principal) =>
      hosts('deny-host').map((host) => ({ permissionType: 'DENY' as const, principal, host })),
    ),
  ];
}

export async function aclCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS, USAGE);
  const [action] = positionals;
  if (values.help || !action) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  const client = new KafkaClient(bootstrapOf(values), connectOptionsOf(values));
  try {
    switch (action) {
      case 'add': {
        const res = resources(values);
        const es = entries(values);
        const ops = operations(values);
        if (res.length === 0) throw new UsageError(`acl add needs a resource\n\n${USAGE}`);
        if (es.length === 0) throw new UsageError(`acl add needs --allow-principal or --deny-principal\n\n${USAGE}`);
        if (ops.length === 0) throw new UsageError(`acl add needs --operation\n\n${USAGE}`);
        const pt = patternType(values, 'LITERAL', ['LITERAL', 'PREFIXED']);
        const bindings: AclBinding[] = res.flatMap((r) =>
          es.flatMap((e) =>
            ops.map((operation) => ({
              resourceType: r.type,
              resourceName: r.name,
              patternType: pt,
              ...e,
              operation,
            })),
          ),
        );
        await createAcls(client, bindings);
        out(JSON.stringify({ added: bindings }, null, 2));
        return 0;
      }
      case 'list': {
        const pt = patternType(values, 'ANY', ['ANY', 'MATCH', 'LITERAL', 'PREFIXED']);
        const wanted = resources(values);
        const base: AclBindingFilter = {
          resourceType: 'ANY',
          resourceName: null,
          patternType: pt,
          principal: null,
          host: null,
          operation: 'ANY',
          permissionType: 'ANY',
        };
        const filters: AclBindingFilter[] = (wanted.length > 0 ? wanted : [undefined]).flatMap((r) => {
          const f = r ? { ...base, resourceType: r.type, resourceName: r.name } : base;
          const ps = principals(values, 'principal');
          return ps.length > 0 ? ps.map((principal) => ({ ...f, principal })) : [f];
        });
        const found: AclBinding[] = [];
        for (const f of filters) found.push(...(await describeAcls(client, f)));
        out(JSON.stringify(found, null, 2));
        return 0;
      }
      case 'delete': {
        const res = resources(values);
        if (res.length === 0) throw new UsageError(`acl delete needs a resource\n\n${USAGE}`);
        const pt = patternType(values, 'LITERAL', ['ANY', 'MATCH', 'LITERAL', 'PREFIXED']);
        const ops = operations(values);
        const es = entries(values);
        const filters: AclBindingFilter[] = res.flatMap((r) =>
          (es.length > 0 ? es : [undefined]).flatMap((e) =>
            (ops.length > 0 ? ops : (['ANY'] as AclOperationName[])).map((operation) => ({
              resourceType: r.type,
              resourceName: r.name,
              patternType: pt,
              principal: e?.principal ?? null,
              host:
                e && list(values, e.permissionType === 'ALLOW' ? 'allow-host' : 'deny-host').length > 0 ? e.host : null,
              operation,
              permissionType: e?.permissionType ?? 'ANY',
            })),
          ),
        );
        const deleted = await deleteAcls(client, filters);
        out(JSON.stringify({ deleted }, null, 2));
        return 0;
      }
      default:
        throw new UsageError(`unknown acl action "${action}"\n\n${USAGE}`);
    }
  } finally {
    client.close();
  }
}
