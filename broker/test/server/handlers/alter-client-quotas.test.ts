// AlterClientQuotas per entity: the valid entries stored together, the others answered with
// Kafka's error; a duplicate entity refused whole; validate_only and a failing store change nothing.
import { ErrorCode } from '../../../src/protocol/error-codes';
import { Authorizer } from '../../../src/server/authorizer';
import type { RequestContext } from '../../../src/server/context';
import { newSession, PLAINTEXT_LISTENER } from '../../../src/server/session';
import { alterClientQuotasHandler } from '../../../src/server/handlers/alter-client-quotas';
import { BrokerQuotas } from '../../../src/server/quotas/broker-quotas';
import { silentLogger } from '../../../src/logger';
import { MemoryStorage } from '../../../src/storage/memory/memory-storage';
import { StorageError } from '../../../src/storage/storage';
import { promised } from '../../../src/storage/sync-adapter';

function context(storage: MemoryStorage) {
  const quotas = new BrokerQuotas({ samples: 11, windowMs: 1000 });
  // A broker without ACLs that lets everyone in: these tests are about quotas, acl.test.ts about who may.
  const authorizer = new Authorizer(promised(storage), { superUsers: [], allowEveryoneIfNoAclFound: true });
  const session = newSession(PLAINTEXT_LISTENER, '127.0.0.1');
  return {
    ctx: {
      broker: { storage: promised(storage), quotas, logger: silentLogger, authorizer },
      session,
    } as unknown as RequestContext,
    quotas,
  };
}
const entry = (entity: [string, string | null][], ops: [string, number, boolean?][]) => ({
  entity: entity.map(([entityType, entityName]) => ({ entityType, entityName })),
  ops: ops.map(([key, value, remove]) => ({ key, value, remove: remove ?? false })),
});

describe('AlterClientQuotas handler', () => {
  it('stores the valid entities, answers each, and the broker enforces them at once', async () => {
    const storage = new MemoryStorage();
    const { ctx, quotas } = context(storage);
    const res = (await alterClientQuotasHandler.handle(ctx, {
      entries: [
        entry([['client-id', 'a']], [['producer_byte_rate', 100]]),
        entry([['user', '']], [['producer_byte_rate', 100]]),
      ],
      validateOnly: false,
    }))!;
    expect(res.entries.map((e) => [e.errorCode, e.errorMessage])).toEqual([
      [ErrorCode.NONE, null],
      [ErrorCode.INVALID_REQUEST, 'Empty user not supported'],
    ]);
    expect(await storage.clientQuotas()).toEqual([
      { entity: { 'client-id': 'a' }, values: { producer_byte_rate: 100 } },
    ]);
    expect(quotas.produce.quotaFor('anyone', 'a')).toBe(100);
  });

  it('refuses both entries of an entity named twice, and stores nothing for it', async () => {
    const storage = new MemoryStorage();
    const { ctx } = context(storage);
    const res = (await alterClientQuotasHandler.handle(ctx, {
      entries: [
        entry(
          [
            ['user', 'u'],
            ['client-id', 'c'],
          ],
          [['producer_byte_rate', 1]],
        ),
        entry(
          [
            ['client-id', 'c'],
            ['user', 'u'],
          ],
          [['consumer_byte_rate', 1]],
        ),
      ],
      validateOnly: false,
    }))!;
    expect(res.entries).toHaveLength(1);
    expect(res.entries[0]!.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(res.entries[0]!.errorMessage).toMatch(/Ignoring duplicate entity/);
    expect(await storage.clientQuotas()).toEqual([]);
  });

  it('stores nothing with validate_only', async () => {
    const storage = new MemoryStorage();
    const { ctx, quotas } = context(storage);
    const res = (await alterClientQuotasHandler.handle(ctx, {
      entries: [entry([['ip', null]], [['connection_creation_rate', 5]])],
      validateOnly: true,
    }))!;
    expect(res.entries[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(await storage.clientQuotas()).toEqual([]);
    expect(quotas.connections.enabled).toBe(false);
  });

  it('answers KAFKA_STORAGE_ERROR when the store fails (full disk), with the entity refused and nothing enforced', async () => {
    const storage = new MemoryStorage();
    storage.alterClientQuotas = () => {
      throw new StorageError('SQLite failed: database or disk is full (SQLITE_FULL)', { code: 'SQLITE_FULL' });
    };
    const { ctx, quotas } = context(storage);
    const res = (await alterClientQuotasHandler.handle(ctx, {
      entries: [entry([['client-id', 'a']], [['producer_byte_rate', 100]]), entry([['user', 'x']], [['nope', 1]])],
      validateOnly: false,
    }))!;
    expect(res.entries.map((e) => e.errorCode)).toEqual([ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.INVALID_REQUEST]);
    expect(res.entries[0]!.errorMessage).toMatch(/storing the quotas failed: .*disk is full/);
    expect(quotas.produce.enabled).toBe(false);
  });
});
