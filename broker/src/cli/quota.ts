// `minnow quota set|list|delete`: client quotas over the Kafka protocol (AlterClientQuotas,
// DescribeClientQuotas), the shape of `kafka-configs --entity-type users|clients|ips`. Output is JSON.
import { KafkaClient } from '../client/client';
import { AUTH_USAGE, connectOptionsOf } from '../client-auth';
import { alterClientQuotas, describeClientQuotas, QuotaEntity, QuotaFilterComponent } from '../client/client-quotas';
import { bootstrapFrom, parse, UsageError } from '../args';

const USAGE = `usage:
  minnow quota set ENTITY KEY=VALUE [KEY=VALUE ...] [--validate-only]
  minnow quota list [ENTITY]             (JSON array of {entity, values}; ENTITY narrows it)
  minnow quota delete ENTITY [KEY ...]   (no KEY: every quota of the entity)
ENTITY: --for-user NAME | --for-user-default, and/or --client-id ID | --client-id-default; or --ip ADDR | --ip-default
KEY: producer_byte_rate, consumer_byte_rate (bytes/s), request_percentage (percent of the broker's
     request-handling time), controller_mutation_rate (partitions created or deleted per second;
     these four: user/client-id entities);
     connection_creation_rate (new connections/s; ip entities)
options: --bootstrap-server HOST:PORT (default MINNOW_BOOTSTRAP_SERVER or localhost:9092)
${AUTH_USAGE}`;

export interface QuotaCommandIo {
  bootstrap: string;
  out: (line: string) => void;
}

export function quotaCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  return runQuotaCommand(argv, { bootstrap: bootstrapFrom(undefined, process.env), out });
}

const ENTITY_FLAGS = [
  ['for-user', 'for-user-default', 'user'],
  ['client-id', 'client-id-default', 'client-id'],
  ['ip', 'ip-default', 'ip'],
] as const;

/** The entity the flags name (types with a name or the default), or undefined when none is named. */
function entityOf(values: Record<string, unknown>): QuotaEntity | undefined {
  const entity: QuotaEntity = {};
  for (const [named, dflt, type] of ENTITY_FLAGS) {
    const name = values[named] as string | undefined;
    if (name !== undefined && values[dflt]) throw new UsageError(`give --${named} or --${dflt}, not both\n\n${USAGE}`);
    if (name !== undefined) entity[type] = name;
    else if (values[dflt]) entity[type] = null;
  }
  return Object.keys(entity).length > 0 ? entity : undefined;
}

function parseValues(pairs: string[]): Record<string, number> {
  if (pairs.length === 0) throw new UsageError(`quota set needs at least one KEY=VALUE\n\n${USAGE}`);
  const out: Record<string, number> = {};
  for (const p of pairs) {
    const m = /^([a-z_]+)=(.+)$/.exec(p);
    const value = m ? Number(m[2]) : NaN;
    if (!m || !Number.isFinite(value))
      throw new UsageError(`"${p}": expected KEY=NUMBER, e.g. producer_byte_rate=1048576`);
    out[m[1]!] = value;
  }
  return out;
}

export async function runQuotaCommand(argv: string[], io: QuotaCommandIo): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      // --user is the login (client-auth.ts): the quota's user is --for-user.
      'for-user': { type: 'string' },
      'for-user-default': { type: 'boolean' },
      'client-id': { type: 'string' },
      'client-id-default': { type: 'boolean' },
      ip: { type: 'string' },
      'ip-default': { type: 'boolean' },
      'validate-only': { type: 'boolean' },
    },
    USAGE,
  );
  const [action, ...rest] = positionals;
  if (values.help || !action) {
    io.out(USAGE);
    return values.help ? 0 : 2;
  }
  const entity = entityOf(values);
  const needEntity = () => {
    if (!entity)
      throw new UsageError(
        `quota ${action} needs an entity (--for-user, --client-id, --ip or their -default)\n\n${USAGE}`,
      );
    return entity;
  };
  const client = new KafkaClient(
    (values['bootstrap-server'] as string | undefined) ?? io.bootstrap,
    connectOptionsOf(values),
  );
  try {
    switch (action) {
      case 'set': {
        const e = needEntity();
        const set = parseValues(rest);
        await alterClientQuotas(client, [{ entity: e, set }], values['validate-only'] === true);
        io.out(JSON.stringify({ entity: e, set, validateOnly: values['validate-only'] === true }));
        return 0;
      }
      case 'list': {
        // Strict: the entity exactly as named; without one, every entity.
        const components: QuotaFilterComponent[] = Object.entries(entity ?? {}).map(([entityType, name]) =>
          name === null ? { entityType, matchType: 1, match: null } : { entityType, matchType: 0, match: name },
        );
        io.out(JSON.stringify(await describeClientQuotas(client, components, entity !== undefined), null, 2));
        return 0;
      }
      case 'delete': {
        const e = needEntity();
        let keys = rest;
        if (keys.length === 0) {
          const components = Object.entries(e).map(([entityType, name]) =>
            name === null
              ? { entityType, matchType: 1 as const, match: null }
              : { entityType, matchType: 0 as const, match: name },
          );
          keys = (await describeClientQuotas(client, components, true)).flatMap((q) => Object.keys(q.values));
        }
        if (keys.length > 0) await alterClientQuotas(client, [{ entity: e, remove: keys }]);
        io.out(JSON.stringify({ entity: e, removed: keys }));
        return 0;
      }
      default:
        throw new UsageError(`unknown quota action "${action}"\n\n${USAGE}`);
    }
  } finally {
    client.close();
  }
}
