// The authorizer against Kafka's documented semantics (StandardAuthorizerData, the "Authorization
// and ACLs" section of Kafka's security docs), one row per rule.
import type { AclBinding, AclOperationName } from '../../src/protocol/acl';
import { Authorizer, AuthorizableResourceType } from '../../src/server/authorizer';
import { defaultAllowEveryoneIfNoAclFound, allowEveryoneIfNoAclFound } from '../../src/server/authorizer-defaults';
import { loadConfig } from '../../src/server/config';
import { newSession, PLAINTEXT_LISTENER, Session } from '../../src/server/session';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { promised } from '../../src/storage/sync-adapter';

const session = (user: string, ip = '10.0.0.5'): Session => ({
  ...newSession(PLAINTEXT_LISTENER, ip),
  principal: { principalType: 'User', name: user },
});

const acl = (o: Partial<AclBinding>): AclBinding => ({
  resourceType: 'TOPIC',
  resourceName: 'orders',
  patternType: 'LITERAL',
  principal: 'User:alice',
  host: '*',
  operation: 'READ',
  permissionType: 'ALLOW',
  ...o,
});

function authorizer(
  acls: AclBinding[],
  opts: { superUsers?: string[]; allowEveryone?: boolean } = {},
): Promise<Authorizer> {
  const storage = new MemoryStorage();
  storage.createAcls(acls);
  return Authorizer.open(promised(storage), {
    superUsers: opts.superUsers ?? [],
    allowEveryoneIfNoAclFound: opts.allowEveryone ?? false,
  });
}

type Row = [
  string,
  AclBinding[],
  { user?: string; ip?: string; op: AclOperationName; type?: AuthorizableResourceType; name?: string },
  boolean,
  { superUsers?: string[]; allowEveryone?: boolean }?,
];

const rows: Row[] = [
  ['no ACLs, ALLOW_EVERYONE false: denied', [], { op: 'READ' }, false],
  ['no ACLs, ALLOW_EVERYONE true: allowed', [], { op: 'READ' }, true, { allowEveryone: true }],
  [
    'a super user is allowed whatever the ACLs',
    [acl({ permissionType: 'DENY', operation: 'ALL', principal: 'User:*' })],
    { user: 'admin', op: 'DELETE' },
    true,
    { superUsers: ['User:admin'] },
  ],
  ['literal ALLOW READ: READ allowed', [acl({})], { op: 'READ' }, true],
  ['literal ALLOW READ: WRITE denied', [acl({})], { op: 'WRITE' }, false],
  [
    'another principal on a resource with ACLs: denied even with ALLOW_EVERYONE',
    [acl({})],
    { user: 'bob', op: 'READ' },
    false,
    { allowEveryone: true },
  ],
  [
    'ACLs on another resource leave this one to ALLOW_EVERYONE',
    [acl({ resourceName: 'other' })],
    { user: 'bob', op: 'READ' },
    true,
    { allowEveryone: true },
  ],
  [
    'ACLs on another resource type leave this one to ALLOW_EVERYONE',
    [acl({ resourceType: 'GROUP' })],
    { user: 'bob', op: 'READ' },
    true,
    { allowEveryone: true },
  ],
  ['READ implies DESCRIBE', [acl({})], { op: 'DESCRIBE' }, true],
  ['WRITE implies DESCRIBE', [acl({ operation: 'WRITE' })], { op: 'DESCRIBE' }, true],
  ['DELETE implies DESCRIBE', [acl({ operation: 'DELETE' })], { op: 'DESCRIBE' }, true],
  ['ALTER implies DESCRIBE', [acl({ operation: 'ALTER' })], { op: 'DESCRIBE' }, true],
  ['CREATE does not imply DESCRIBE', [acl({ operation: 'CREATE' })], { op: 'DESCRIBE' }, false],
  ['READ does not imply DESCRIBE_CONFIGS', [acl({})], { op: 'DESCRIBE_CONFIGS' }, false],
  ['ALTER_CONFIGS implies DESCRIBE_CONFIGS', [acl({ operation: 'ALTER_CONFIGS' })], { op: 'DESCRIBE_CONFIGS' }, true],
  ['DESCRIBE does not imply READ', [acl({ operation: 'DESCRIBE' })], { op: 'READ' }, false],
  ['ALLOW ALL allows every operation', [acl({ operation: 'ALL' })], { op: 'ALTER_CONFIGS' }, true],
  ['DENY wins over ALLOW', [acl({}), acl({ permissionType: 'DENY' })], { op: 'READ' }, false],
  [
    'DENY ALL wins over ALLOW READ',
    [acl({}), acl({ permissionType: 'DENY', operation: 'ALL' })],
    { op: 'READ' },
    false,
  ],
  [
    'DENY READ does not deny the DESCRIBE it would imply',
    [acl({ operation: 'ALL' }), acl({ permissionType: 'DENY' })],
    { op: 'DESCRIBE' },
    true,
  ],
  [
    'DENY on a prefix wins over a literal ALLOW',
    [acl({}), acl({ resourceName: 'ord', patternType: 'PREFIXED', permissionType: 'DENY' })],
    { op: 'READ' },
    false,
  ],
  [
    'DENY for User:* wins over ALLOW for the user',
    [acl({}), acl({ principal: 'User:*', permissionType: 'DENY' })],
    { op: 'READ' },
    false,
  ],
  ['literal * applies to every name of its type', [acl({ resourceName: '*' })], { op: 'READ', name: 'anything' }, true],
  [
    'literal * does not apply to another type',
    [acl({ resourceName: '*' })],
    { op: 'READ', type: 'GROUP', name: 'g' },
    false,
  ],
  [
    'PREFIXED applies to names starting with it',
    [acl({ resourceName: 'ord', patternType: 'PREFIXED' })],
    { op: 'READ', name: 'orders' },
    true,
  ],
  [
    'PREFIXED applies to the name equal to it',
    [acl({ resourceName: 'ord', patternType: 'PREFIXED' })],
    { op: 'READ', name: 'ord' },
    true,
  ],
  [
    'PREFIXED does not apply to a shorter name',
    [acl({ resourceName: 'ord', patternType: 'PREFIXED' })],
    { op: 'READ', name: 'or' },
    false,
  ],
  [
    'PREFIXED * is a prefix, not a wildcard',
    [acl({ resourceName: '*', patternType: 'PREFIXED' })],
    { op: 'READ', name: 'orders' },
    false,
  ],
  ['a LITERAL name is not a prefix', [acl({ resourceName: 'ord' })], { op: 'READ', name: 'orders' }, false],
  ['User:* matches every user', [acl({ principal: 'User:*' })], { user: 'zoe', op: 'READ' }, true],
  ['a host ACL matches its IP', [acl({ host: '10.0.0.5' })], { op: 'READ', ip: '10.0.0.5' }, true],
  ['a host ACL does not match another IP', [acl({ host: '10.0.0.5' })], { op: 'READ', ip: '10.0.0.6' }, false],
  [
    'CLUSTER ACLs: ALLOW ALTER on kafka-cluster',
    [acl({ resourceType: 'CLUSTER', resourceName: 'kafka-cluster', operation: 'ALTER' })],
    { op: 'ALTER', type: 'CLUSTER', name: 'kafka-cluster' },
    true,
  ],
  [
    'TRANSACTIONAL_ID: WRITE implies DESCRIBE',
    [acl({ resourceType: 'TRANSACTIONAL_ID', resourceName: 'tx', operation: 'WRITE' })],
    { op: 'DESCRIBE', type: 'TRANSACTIONAL_ID', name: 'tx' },
    true,
  ],
];

describe('authorize', () => {
  // Every row gets its options argument: a shorter row would make jest pass `done` there and wait.
  it.each(rows.map((r): Row => [r[0], r[1], r[2], r[3], r[4] ?? {}]))('%s', async (_name, acls, q, expected, opts) => {
    const a = await authorizer(acls, opts);
    const s = session(q.user ?? 'alice', q.ip);
    expect(a.authorize(s, q.op, q.type ?? 'TOPIC', q.name ?? 'orders')).toBe(expected);
    // Asked again, the cached decision is the same.
    expect(a.authorize(s, q.op, q.type ?? 'TOPIC', q.name ?? 'orders')).toBe(expected);
  });

  it('decides anew after the ACLs change (reload), and when the connection gets another principal', async () => {
    const storage = new MemoryStorage();
    const a = new Authorizer(promised(storage), { superUsers: ['User:root'], allowEveryoneIfNoAclFound: false });
    storage.createAcls([acl({ resourceName: 'other' })]); // some ACL, so decisions are cached
    await a.reload();
    const s = session('alice');
    expect(a.authorize(s, 'READ', 'TOPIC', 'orders')).toBe(false);
    storage.createAcls([acl({})]);
    await a.reload();
    expect(a.authorize(s, 'READ', 'TOPIC', 'orders')).toBe(true);
    storage.deleteAcls([acl({})]);
    await a.reload();
    expect(a.authorize(s, 'READ', 'TOPIC', 'orders')).toBe(false);
    // SASL (re-)authentication replaces the session's principal: the cached decisions go.
    s.principal = { principalType: 'User', name: 'root' };
    expect(a.authorize(s, 'READ', 'TOPIC', 'orders')).toBe(true);
  });
});

describe('authorizeByResourceType (InitProducerId: WRITE on any topic)', () => {
  const byType = async (
    acls: AclBinding[],
    opts?: { allowEveryone?: boolean; superUsers?: string[] },
    user = 'alice',
  ) => (await authorizer(acls, opts)).authorizeByResourceType(session(user), 'WRITE', 'TOPIC');
  it.each([
    ['no ACLs, ALLOW_EVERYONE true', [], { allowEveryone: true }, true],
    ['no ACLs, ALLOW_EVERYONE false', [], {}, false],
    ['a literal ALLOW WRITE', [acl({ operation: 'WRITE' })], {}, true],
    ['an ALLOW READ only', [acl({})], {}, false],
    ['an ALLOW ALL', [acl({ operation: 'ALL' })], {}, true],
    [
      'ALLOW WRITE on a name DENY WRITE also names',
      [acl({ operation: 'WRITE' }), acl({ operation: 'WRITE', permissionType: 'DENY' })],
      {},
      false,
    ],
    [
      'ALLOW WRITE under a DENY prefix',
      [
        acl({ operation: 'WRITE' }),
        acl({ operation: 'WRITE', resourceName: 'o', patternType: 'PREFIXED', permissionType: 'DENY' }),
      ],
      {},
      false,
    ],
    [
      'ALLOW prefix not covered by a DENY literal',
      [
        acl({ operation: 'WRITE', resourceName: 'o', patternType: 'PREFIXED' }),
        acl({ operation: 'WRITE', permissionType: 'DENY' }),
      ],
      {},
      true,
    ],
    [
      'a DENY on literal * denies outright',
      [
        acl({ operation: 'WRITE', resourceName: 'x' }),
        acl({ operation: 'WRITE', resourceName: '*', permissionType: 'DENY' }),
      ],
      {},
      false,
    ],
    ["another user's ALLOW", [acl({ operation: 'WRITE', principal: 'User:bob' })], {}, false],
  ] as [string, AclBinding[], { allowEveryone?: boolean }, boolean][])('%s', async (_name, acls, opts, expected) => {
    expect(await byType(acls, opts)).toBe(expected);
  });
  it('a super user, whatever the DENYs', async () => {
    expect(
      await byType(
        [acl({ operation: 'ALL', principal: 'User:*', resourceName: '*', permissionType: 'DENY' })],
        { superUsers: ['User:root'] },
        'root',
      ),
    ).toBe(true);
  });
});

describe('ALLOW_EVERYONE_IF_NO_ACL_FOUND default', () => {
  const cfg = (env: Record<string, string> = {}) => loadConfig(env);
  it('is true for a broker nobody authenticates to (npm start)', async () => {
    expect(allowEveryoneIfNoAclFound(cfg())).toBe(true);
  });
  it('is false once a listener authenticates (sasl+ listener, or TLS client certificates required)', async () => {
    const base = cfg();
    expect(defaultAllowEveryoneIfNoAclFound({ ...base, listeners: [{ securityProtocol: 'SASL_SSL' }] } as never)).toBe(
      false,
    );
    expect(
      defaultAllowEveryoneIfNoAclFound({
        ...base,
        listeners: [{ securityProtocol: 'PLAINTEXT' }, { securityProtocol: 'SASL_PLAINTEXT' }],
      } as never),
    ).toBe(false);
    expect(defaultAllowEveryoneIfNoAclFound({ ...base, tlsClientAuth: 'required' } as never)).toBe(false);
    expect(
      defaultAllowEveryoneIfNoAclFound({
        ...base,
        listeners: [{ securityProtocol: 'SSL' }],
        tlsClientAuth: 'requested',
      } as never),
    ).toBe(true);
  });
  it('an explicit setting always wins', async () => {
    expect(allowEveryoneIfNoAclFound(cfg({ ALLOW_EVERYONE_IF_NO_ACL_FOUND: 'false' }))).toBe(false);
    expect(
      allowEveryoneIfNoAclFound({
        ...cfg({ ALLOW_EVERYONE_IF_NO_ACL_FOUND: 'true' }),
        listeners: [{ securityProtocol: 'SASL_SSL' }],
      } as never),
    ).toBe(true);
  });
  it('SUPER_USERS is split on ; and refuses entries without a type', async () => {
    expect(cfg({ SUPER_USERS: 'User:admin; User:ops;' }).superUsers).toEqual(['User:admin', 'User:ops']);
    expect(() => cfg({ SUPER_USERS: 'admin' })).toThrow(/SUPER_USERS="admin" is not valid/);
  });
});
