// SCRAM users through Kafka's APIs (DescribeUserScramCredentials / AlterUserScramCredentials, with
// Kafka's validation and errors) and through `minnow user add|list|delete`, which authenticates as
// the bootstrap admin over a sasl+tcp:// listener; a user added there logs in with PLAIN and SCRAM.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KafkaClientError, KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { saltedPassword } from '../../src/sasl/scram-crypto';
import { describeWithTools } from '../support/external-tools';
import { run, tempDir } from './helpers';
import { venvPython } from './python-venv';
import { addUser, SaslBroker, startSaslBroker } from './sasl-support';
import { MINNOW } from './serve-child';

const SHA256 = 1;
const SHA512 = 2;

describe('Describe/AlterUserScramCredentials', () => {
  let b: SaslBroker;
  let admin: KafkaConnection;
  beforeAll(async () => {
    b = await startSaslBroker();
    await addUser(b.broker.context.storage, 'admin', 'admin-secret');
    admin = await KafkaConnection.connect('127.0.0.1', b.saslPort, {
      sasl: { mechanism: 'SCRAM-SHA-256', username: 'admin', password: 'admin-secret' },
    });
  });
  afterAll(async () => {
    admin.close();
    return b.broker.stop();
  });

  const upsert = async (name: string, mechanism: number, iterations: number, password = 'pw') => {
    const salt = Buffer.from(`salt-of-${name}`);
    const hash = mechanism === SHA512 ? 'SCRAM-SHA-512' : 'SCRAM-SHA-256';
    return {
      name,
      mechanism,
      iterations,
      salt,
      saltedPassword: await saltedPassword(hash, password, salt, Math.max(iterations, 1)),
    };
  };
  const alter = (deletions: { name: string; mechanism: number }[], upsertions: unknown[]) =>
    admin.send(ApiKey.AlterUserScramCredentials, 0, { deletions, upsertions });
  const describe = (users: { name: string }[] | null) => admin.send(ApiKey.DescribeUserScramCredentials, 0, { users });

  it("answers Kafka's errors per user and stores only the valid changes", async () => {
    const res = await alter(
      [{ name: 'ghost', mechanism: SHA256 }],
      [
        await upsert('carol', SHA512, 8192, 'carol-pw'),
        await upsert('few', SHA256, 4095),
        await upsert('many', SHA256, 16385),
        await upsert('', SHA256, 4096),
        await upsert('weird', 3, 4096),
        await upsert('twice', SHA256, 4096),
        await upsert('twice', SHA512, 4096),
      ],
    );
    const byUser = Object.fromEntries(res.results.map((r: { user: string }) => [r.user, r]));
    expect(byUser).toEqual({
      carol: { user: 'carol', errorCode: 0, errorMessage: null },
      ghost: {
        user: 'ghost',
        errorCode: ErrorCode.RESOURCE_NOT_FOUND,
        errorMessage: 'Attempt to delete a user credential that does not exist',
      },
      few: { user: 'few', errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too few iterations' },
      many: { user: 'many', errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too many iterations' },
      '': { user: '', errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Username must not be empty' },
      weird: {
        user: 'weird',
        errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM,
        errorMessage: 'Unknown SCRAM mechanism',
      },
      twice: {
        user: 'twice',
        errorCode: ErrorCode.DUPLICATE_RESOURCE,
        errorMessage: 'A user credential cannot be altered twice in the same request',
      },
    });
    expect((await b.broker.context.storage.scramCredentials()).map((c) => c.user)).toEqual(['admin', 'admin', 'carol']);
    // carol logs in with the password her salted password came from.
    const c = await KafkaConnection.connect('127.0.0.1', b.saslPort, {
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'carol', password: 'carol-pw' },
    });
    c.close();
  });

  it('describes all users, or the ones named (unknown: RESOURCE_NOT_FOUND, twice: DUPLICATE_RESOURCE)', async () => {
    await alter([], [await upsert('dave', SHA256, 4096)]);
    const all = await describe(null);
    expect(all.errorCode).toBe(0);
    const admin256 = all.results.find((r: { user: string }) => r.user === 'admin');
    expect(admin256.credentialInfos).toEqual(
      expect.arrayContaining([
        { mechanism: SHA256, iterations: 4096 },
        { mechanism: SHA512, iterations: 4096 },
      ]),
    );
    const some = await describe([{ name: 'dave' }, { name: 'nobody' }, { name: 'admin' }, { name: 'admin' }]);
    expect(Object.fromEntries(some.results.map((r: { user: string }) => [r.user, r]))).toEqual({
      dave: {
        user: 'dave',
        errorCode: 0,
        errorMessage: null,
        credentialInfos: [{ mechanism: SHA256, iterations: 4096 }],
      },
      nobody: {
        user: 'nobody',
        errorCode: ErrorCode.RESOURCE_NOT_FOUND,
        errorMessage: 'Attempt to describe a user credential that does not exist: nobody',
        credentialInfos: [],
      },
      admin: {
        user: 'admin',
        errorCode: ErrorCode.DUPLICATE_RESOURCE,
        errorMessage: 'Cannot describe SCRAM credentials for the same user twice in a single request: admin',
        credentialInfos: [],
      },
    });
  });

  it('deleting a credential stops that login', async () => {
    await alter([], [await upsert('erin', SHA256, 4096, 'erin-pw')]);
    expect((await alter([{ name: 'erin', mechanism: SHA256 }], [])).results).toEqual([
      { user: 'erin', errorCode: 0, errorMessage: null },
    ]);
    const err = await KafkaConnection.connect('127.0.0.1', b.saslPort, {
      sasl: { mechanism: 'PLAIN', username: 'erin', password: 'erin-pw' },
    }).then(
      () => undefined as never,
      (e: KafkaClientError) => e,
    );
    expect(err.errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
  });
});

describe('minnow user add|list|delete', () => {
  const tmp = tempDir('minnow-users-');
  let b: SaslBroker;
  let adminPasswordFile: string;
  beforeAll(async () => {
    adminPasswordFile = path.join(tmp.dir, 'admin-password');
    fs.writeFileSync(adminPasswordFile, 'the-admin-pw\n');
    b = await startSaslBroker({ adminPasswordFile });
  });
  afterAll(async () => {
    await b.broker.stop();
    tmp.cleanup();
  });
  const minnow = (args: string[], input = '') =>
    run(
      'node',
      [
        MINNOW,
        'user',
        ...args,
        '-b',
        `127.0.0.1:${b.saslPort}`,
        '--user',
        'admin',
        '--password-file',
        adminPasswordFile,
      ],
      { input, timeoutMs: 30_000 },
    );

  it('the bootstrap admin exists with both SCRAM mechanisms and can manage users', async () => {
    const add = await minnow(['add', 'frank', '--password-stdin', '--mechanism', 'SCRAM-SHA-512'], 'frank-pw\n');
    expect(add.stderr).toBe('');
    expect(JSON.parse(add.stdout)).toEqual({ user: 'frank', mechanisms: ['SCRAM-SHA-512'], iterations: 4096 });
    const list = await minnow(['list']);
    expect(JSON.parse(list.stdout)).toEqual([
      {
        user: 'admin',
        mechanisms: [
          { mechanism: 'SCRAM-SHA-256', iterations: 4096 },
          { mechanism: 'SCRAM-SHA-512', iterations: 4096 },
        ],
      },
      { user: 'frank', mechanisms: [{ mechanism: 'SCRAM-SHA-512', iterations: 4096 }] },
    ]);
    for (const mechanism of ['PLAIN', 'SCRAM-SHA-512'] as const) {
      const c = await KafkaConnection.connect('127.0.0.1', b.saslPort, {
        sasl: { mechanism, username: 'frank', password: 'frank-pw' },
      });
      c.close();
    }
    const del = await minnow(['delete', 'frank']);
    expect(JSON.parse(del.stdout)).toEqual({ deleted: 'frank', mechanisms: ['SCRAM-SHA-512'] });
    await expect(
      KafkaConnection.connect('127.0.0.1', b.saslPort, {
        sasl: { mechanism: 'PLAIN', username: 'frank', password: 'frank-pw' },
      }),
    ).rejects.toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED });
  }, 60_000);

  it('adds both SCRAM mechanisms by default (one request each: Kafka refuses a user twice in one request)', async () => {
    const add = await minnow(['add', 'grace', '--password-stdin'], 'grace-pw\n');
    expect(add.stderr).toBe('');
    expect(JSON.parse(add.stdout)).toEqual({
      user: 'grace',
      mechanisms: ['SCRAM-SHA-256', 'SCRAM-SHA-512'],
      iterations: 4096,
    });
    for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
      const c = await KafkaConnection.connect('127.0.0.1', b.saslPort, {
        sasl: { mechanism, username: 'grace', password: 'grace-pw' },
      });
      c.close();
    }
  }, 60_000);

  it('minnow acl and minnow quota log in with the same flags', async () => {
    const cli = (command: string, args: string[]) =>
      run(
        'node',
        [
          MINNOW,
          command,
          ...args,
          '-b',
          `127.0.0.1:${b.saslPort}`,
          '--user',
          'admin',
          '--password-file',
          adminPasswordFile,
        ],
        { timeoutMs: 30_000 },
      );
    const add = await cli('acl', [
      'add',
      '--allow-principal',
      'User:grace',
      '--operation',
      'read',
      '--topic',
      'orders',
    ]);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    const list = await cli('acl', ['list', '--topic', 'orders']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('User:grace');
    // --user is who logs in; the quota's own user is --for-user.
    const quota = await cli('quota', [
      'set',
      '--for-user',
      'grace',
      '--client-id',
      'loader',
      'producer_byte_rate=1048576',
    ]);
    expect(quota.stderr).toBe('');
    expect(quota.code).toBe(0);
    const quotas = await cli('quota', ['list']);
    expect(JSON.parse(quotas.stdout)).toEqual([
      { entity: { user: 'grace', 'client-id': 'loader' }, values: { producer_byte_rate: 1048576 } },
    ]);
  }, 60_000);

  it('takes the password from stdin only', async () => {
    const argv = await minnow(['add', 'gina', '--password', 'on-the-command-line']);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toMatch(/--password is not accepted.*--password-stdin/);
    const noStdin = await minnow(['add', 'gina']);
    expect(noStdin.code).toBe(2);
    expect(noStdin.stderr).toMatch(/pass --password-stdin/);
    expect((await b.broker.context.storage.scramCredentials()).map((c) => c.user)).not.toContain('gina');
  }, 60_000);

  it("a wrong admin password is refused with the broker's message", async () => {
    const wrong = path.join(tmp.dir, 'wrong');
    fs.writeFileSync(wrong, 'nope\n');
    const r = await run(
      'node',
      [MINNOW, 'user', 'list', '-b', `127.0.0.1:${b.saslPort}`, '--user', 'admin', '--password-file', wrong],
      { timeoutMs: 30_000 },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/SASL SCRAM-SHA-512 authentication as "admin" failed: Authentication failed/);
  }, 60_000);
});

describeWithTools('python3-venv')('confluent-kafka (PyPI) AdminClient manages SCRAM users', () => {
  let b: SaslBroker;
  let python: string;
  beforeAll(async () => {
    b = await startSaslBroker();
    await addUser(b.broker.context.storage, 'admin', 'admin-secret');
    python = await venvPython(path.join(__dirname, 'python', 'requirements-pypi.txt'));
  }, 360_000);
  afterAll(() => b.broker.stop());

  it("alter_user_scram_credentials / describe_user_scram_credentials, with Kafka's refusal of too few iterations", async () => {
    const r = await run(
      python,
      [path.join(__dirname, 'python', 'ck_scram_admin.py'), `127.0.0.1:${b.saslPort}`, 'admin', 'admin-secret'],
      { timeoutMs: 60_000 },
    );
    if (r.code !== 0) throw new Error(`ck_scram_admin.py exited ${r.code}: ${r.stderr.slice(-3000)}`);
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({
      added: 'henry',
      described: [['SCRAM_SHA_512', 8192]],
      weak: ['UNACCEPTABLE_CREDENTIAL', 'Too few iterations'],
      henry_sees_brokers: 1,
    });
  }, 60_000);
});

describe('DescribeConfigs reports the SASL settings under their Kafka names', () => {
  it('sasl.enabled.mechanisms, connections.max.reauth.ms, connection.failed.authentication.delay.ms', async () => {
    const b = await startSaslBroker({ connectionsMaxReauthMs: 3_600_000, saslMechanisms: ['SCRAM-SHA-512'] });
    await addUser(b.broker.context.storage, 'admin', 'admin-secret');
    try {
      const c = await KafkaConnection.connect('127.0.0.1', b.saslPort, {
        sasl: { mechanism: 'SCRAM-SHA-512', username: 'admin', password: 'admin-secret' },
      });
      const names = [
        'sasl.enabled.mechanisms',
        'connections.max.reauth.ms',
        'connection.failed.authentication.delay.ms',
      ];
      const res = await c.send(ApiKey.DescribeConfigs, 4, {
        resources: [{ resourceType: 4, resourceName: '1', configurationKeys: names }],
        includeSynonyms: false,
        includeDocumentation: false,
      });
      c.close();
      const values = Object.fromEntries(
        res.results[0].configs.map((e: { name: string; value: string }) => [e.name, e.value]),
      );
      expect(values).toEqual({
        'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
        'connections.max.reauth.ms': '3600000',
        'connection.failed.authentication.delay.ms': '0',
      });
    } finally {
      await b.broker.stop();
    }
  });
});
