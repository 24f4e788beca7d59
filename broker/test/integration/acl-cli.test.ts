// `minnow acl add|list|delete` against a running broker, through the Kafka API: kafka-acls' flags
// give the bindings the broker stores, list filters them, delete removes what its filters match;
// a principal that may not ALTER the cluster is refused with Kafka's error.
import * as path from 'node:path';
import { aclCommand } from '../../src/cli/acl';
import type { RunningBroker } from '../../src/server/broker';
import { run, startTestBroker, engineOf } from './helpers';

const MINNOW = path.resolve(__dirname, '../../bin/minnow.js');

describe('minnow acl', () => {
  let broker: RunningBroker;
  let bootstrap: string;
  beforeAll(async () => {
    broker = await startTestBroker('memory://', {
      config: { allowEveryoneIfNoAclFound: false, superUsers: ['User:minnow-cli'] },
      // The CLI's client id is minnow-cli: the test broker makes that its principal.
      testOnlyPrincipalForClientId: (id) =>
        id === 'minnow-cli' ? { principalType: 'User', name: 'minnow-cli' } : undefined,
    });
    bootstrap = `127.0.0.1:${broker.port}`;
  });
  afterAll(() => broker.stop());

  const acl = async (args: string[]) => {
    const lines: string[] = [];
    const code = await aclCommand([...args, '--bootstrap-server', bootstrap], (l) => lines.push(l));
    return { code, json: lines.length > 0 ? JSON.parse(lines.join('\n')) : undefined };
  };
  const stored = () =>
    engineOf(broker)
      .listAcls()
      .map(
        (b) =>
          `${b.permissionType} ${b.principal}@${b.host} ${b.operation} ${b.resourceType}:${b.patternType}:${b.resourceName}`,
      )
      .sort();

  it('adds every principal x host x operation x resource, lists and deletes them', async () => {
    const added = await acl([
      'add',
      '--allow-principal',
      'User:alice',
      '--allow-principal',
      'User:bob',
      '--operation',
      'read',
      '--operation',
      'describe',
      '--topic',
      'orders',
      '--group',
      'billing',
    ]);
    expect(added.code).toBe(0);
    expect(added.json.added).toHaveLength(8);
    await acl([
      'add',
      '--deny-principal',
      'User:mallory',
      '--deny-host',
      '10.0.0.9',
      '--operation',
      'All',
      '--topic',
      'ord',
      '--resource-pattern-type',
      'prefixed',
    ]);
    await acl(['add', '--allow-principal', 'User:ops', '--operation', 'alter', '--cluster']);
    expect(stored()).toEqual(
      [
        ...['alice', 'bob'].flatMap((u) =>
          ['READ', 'DESCRIBE'].flatMap((op) => [
            `ALLOW User:${u}@* ${op} TOPIC:LITERAL:orders`,
            `ALLOW User:${u}@* ${op} GROUP:LITERAL:billing`,
          ]),
        ),
        'DENY User:mallory@10.0.0.9 ALL TOPIC:PREFIXED:ord',
        'ALLOW User:ops@* ALTER CLUSTER:LITERAL:kafka-cluster',
      ].sort(),
    );

    // list: everything; by topic with MATCH (the prefixed ACL covers "orders" too); by principal.
    expect((await acl(['list'])).json).toHaveLength(10);
    const matching = (await acl(['list', '--topic', 'orders', '--resource-pattern-type', 'match'])).json;
    expect(matching.map((b: { patternType: string }) => b.patternType).sort()).toEqual([
      'LITERAL',
      'LITERAL',
      'LITERAL',
      'LITERAL',
      'PREFIXED',
    ]);
    expect((await acl(['list', '--principal', 'User:ops'])).json).toEqual([
      {
        resourceType: 'CLUSTER',
        resourceName: 'kafka-cluster',
        patternType: 'LITERAL',
        principal: 'User:ops',
        host: '*',
        operation: 'ALTER',
        permissionType: 'ALLOW',
      },
    ]);

    // delete: bob's READ on orders only, then everything on group billing.
    const one = await acl(['delete', '--topic', 'orders', '--allow-principal', 'User:bob', '--operation', 'read']);
    expect(one.json.deleted).toHaveLength(1);
    expect(stored()).not.toContain('ALLOW User:bob@* READ TOPIC:LITERAL:orders');
    const group = await acl(['delete', '--group', 'billing']);
    expect(group.json.deleted).toHaveLength(4);
    expect(stored().filter((s) => s.includes('GROUP:'))).toEqual([]);
    expect(stored()).toHaveLength(5);
  });

  it('refuses bad flags before sending anything', async () => {
    await expect(acl(['add', '--allow-principal', 'alice', '--operation', 'read', '--topic', 't'])).rejects.toThrow(
      /--allow-principal alice: expected TYPE:NAME/,
    );
    await expect(acl(['add', '--allow-principal', 'User:a', '--operation', 'fly', '--topic', 't'])).rejects.toThrow(
      /--operation fly: not an ACL operation/,
    );
    await expect(acl(['add', '--allow-principal', 'User:a', '--operation', 'read'])).rejects.toThrow(
      /needs a resource/,
    );
  });

  it("runs as the minnow command, and reports the broker's refusal for a principal that may not ALTER the cluster", async () => {
    const listed = await run('node', [MINNOW, 'acl', 'list', '--bootstrap-server', bootstrap], { timeoutMs: 30_000 });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).length).toBeGreaterThan(0);
    const other = await startTestBroker('memory://', { config: { allowEveryoneIfNoAclFound: false } });
    try {
      const refused = await run(
        'node',
        [
          MINNOW,
          'acl',
          'add',
          '--allow-principal',
          'User:me',
          '--operation',
          'all',
          '--topic',
          '*',
          '-b',
          `127.0.0.1:${other.port}`,
        ],
        { timeoutMs: 30_000 },
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/CLUSTER_AUTHORIZATION_FAILED/);
      expect(await other.context.storage.listAcls()).toEqual([]);
    } finally {
      await other.stop();
    }
  });
});
