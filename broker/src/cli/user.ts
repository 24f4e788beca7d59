// `minnow user add|list|delete`: SASL/SCRAM users over Kafka's own APIs
// (AlterUserScramCredentials / DescribeUserScramCredentials), as kafka-configs --entity-type users
// does: the salted password is derived here, so the password itself never leaves this process.
// The password comes from stdin only (--password-stdin), never from argv.
import { randomBytes } from 'node:crypto';
import { KafkaClient } from '../client/client';
import { KafkaClientError } from '../client/connection';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { AlterUserScramCredentialsResponse, DescribeUserScramCredentialsResponse } from '../protocol/messages';
import {
  isScramMechanism,
  SCRAM_DEFAULT_ITERATIONS,
  SCRAM_MAX_ITERATIONS,
  SCRAM_MECHANISM_NAMES,
  SCRAM_MECHANISMS,
  SCRAM_MIN_ITERATIONS,
  saltedPassword,
  scramMechanismByType,
  ScramMechanismName,
} from '../sasl/scram-crypto';
import { bootstrapOf, intOption, parse, UsageError } from '../args';
import { AUTH_USAGE, connectOptionsOf } from '../client-auth';

const USAGE = `usage:
  minnow user add NAME --password-stdin [--mechanism SCRAM-SHA-256|SCRAM-SHA-512 ...] [--iterations N]
      (default: both mechanisms, ${SCRAM_DEFAULT_ITERATIONS} iterations; adding an existing user sets its password)
  minnow user list                   (JSON: each user's mechanisms and iterations)
  minnow user delete NAME [--mechanism M ...]   (default: all of its mechanisms)
options: --bootstrap-server HOST:PORT (default localhost:9092)
${AUTH_USAGE}`;

export interface UserIo {
  out(line: string): void;
  /** All of stdin. */
  readStdin(): Promise<string>;
}

const defaultIo: UserIo = {
  out: (l) => console.log(l),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

function mechanismsOf(values: Record<string, unknown>): ScramMechanismName[] {
  const given = (values.mechanism as string[] | undefined) ?? [];
  if (given.length === 0) return [...SCRAM_MECHANISM_NAMES];
  return given.map((m) => {
    const name = m.trim().toUpperCase();
    if (!isScramMechanism(name)) throw new UsageError(`--mechanism ${m}: expected SCRAM-SHA-256 or SCRAM-SHA-512`);
    return name;
  });
}

function check(res: AlterUserScramCredentialsResponse): void {
  const failed = res.results.filter((r) => r.errorCode !== ErrorCode.NONE);
  if (failed.length > 0)
    throw new KafkaClientError(
      failed
        .map((r) => `${r.user}: ${errorName(r.errorCode)}${r.errorMessage ? ` (${r.errorMessage})` : ''}`)
        .join('; '),
      failed[0]!.errorCode,
    );
}

export async function userCommand(argv: string[], io: UserIo = defaultIo): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      mechanism: { type: 'string', multiple: true, short: 'm' },
      iterations: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      password: { type: 'string' },
    },
    USAGE,
  );
  const [action, name] = positionals;
  if (values.help || !action) {
    io.out(USAGE);
    return values.help ? 0 : 2;
  }
  if (values.password !== undefined)
    throw new UsageError(
      '--password is not accepted (argv is visible to every user of the machine): use --password-stdin',
    );
  const needName = () => {
    if (!name) throw new UsageError(`user ${action} needs a user name\n\n${USAGE}`);
    return name;
  };
  const client = new KafkaClient(bootstrapOf(values), connectOptionsOf(values));
  try {
    const conn = async () => {
      const c = await client.connect();
      return {
        c,
        describe: c.version(ApiKey.DescribeUserScramCredentials, 0, 0),
        alter: c.version(ApiKey.AlterUserScramCredentials, 0, 0),
      };
    };
    switch (action) {
      case 'add': {
        const user = needName();
        if (!values['password-stdin'])
          throw new UsageError('user add reads the password from stdin: pass --password-stdin');
        const mechanisms = mechanismsOf(values);
        const iterations = intOption(values, 'iterations', SCRAM_DEFAULT_ITERATIONS, SCRAM_MIN_ITERATIONS);
        if (iterations > SCRAM_MAX_ITERATIONS)
          throw new UsageError(`--iterations ${iterations}: at most ${SCRAM_MAX_ITERATIONS} (Kafka's limit)`);
        const password = (await io.readStdin()).split(/\r?\n/)[0] ?? '';
        if (password === '') throw new UsageError('the password read from stdin is empty');
        const upsertions = [];
        for (const mechanism of mechanisms) {
          const salt = randomBytes(32);
          upsertions.push({
            name: user,
            mechanism: SCRAM_MECHANISMS[mechanism].type,
            iterations,
            salt,
            saltedPassword: await saltedPassword(mechanism, password, salt, iterations),
          });
        }
        const { c, alter } = await conn();
        // One mechanism per request: Kafka (ScramControlManager) refuses a user named twice in one
        // request with DUPLICATE_RESOURCE, so SCRAM-SHA-256 and -512 go one after the other.
        for (const upsertion of upsertions)
          check(await c.send(ApiKey.AlterUserScramCredentials, alter, { deletions: [], upsertions: [upsertion] }));
        io.out(JSON.stringify({ user, mechanisms, iterations }));
        return 0;
      }
      case 'list': {
        const { c, describe } = await conn();
        const res: DescribeUserScramCredentialsResponse = await c.send(ApiKey.DescribeUserScramCredentials, describe, {
          users: null,
        });
        if (res.errorCode !== ErrorCode.NONE)
          throw new KafkaClientError(
            `DescribeUserScramCredentials: ${res.errorMessage ?? errorName(res.errorCode)}`,
            res.errorCode,
          );
        const users = res.results
          .map((r) => ({
            user: r.user,
            mechanisms: r.credentialInfos.map((i) => ({
              mechanism: scramMechanismByType(i.mechanism) ?? `type ${i.mechanism}`,
              iterations: i.iterations,
            })),
          }))
          .sort((a, b) => a.user.localeCompare(b.user));
        io.out(JSON.stringify(users, null, 2));
        return 0;
      }
      case 'delete': {
        const user = needName();
        const { c, describe, alter } = await conn();
        let mechanisms: ScramMechanismName[];
        if (values.mechanism) mechanisms = mechanismsOf(values);
        else {
          const res: DescribeUserScramCredentialsResponse = await c.send(
            ApiKey.DescribeUserScramCredentials,
            describe,
            {
              users: [{ name: user }],
            },
          );
          const r = res.results[0];
          if (!r || r.errorCode !== ErrorCode.NONE)
            throw new KafkaClientError(
              `user ${user}: ${r?.errorMessage ?? errorName(r?.errorCode ?? res.errorCode)}`,
              r?.errorCode,
            );
          mechanisms = r.credentialInfos.map((i) => scramMechanismByType(i.mechanism)!).filter(Boolean);
        }
        // One user per request: Kafka refuses the same user twice in one request (DUPLICATE_RESOURCE).
        for (const mechanism of mechanisms)
          check(
            await c.send(ApiKey.AlterUserScramCredentials, alter, {
              deletions: [{ name: user, mechanism: SCRAM_MECHANISMS[mechanism].type }],
              upsertions: [],
            }),
          );
        io.out(JSON.stringify({ deleted: user, mechanisms }));
        return 0;
      }
      default:
        throw new UsageError(`unknown user action "${action}"\n\n${USAGE}`);
    }
  } finally {
    client.close();
  }
}
