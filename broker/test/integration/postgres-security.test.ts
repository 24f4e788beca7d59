// Two brokers on one postgres:// database (issue 18): an ACL or client quota change made through
// one broker is in force on the other within moments (NOTIFY minnow_security, cluster-setup.ts),
// and a dynamic broker config within the 1 s cache (postgres/security.ts).
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { postgresServer } from '../support/postgres-server';
import type { PostgresServer } from '../support/postgres-server';
import { startTestBroker } from './helpers';

jest.setTimeout(60_000);

/** Polls `check` (bounded: 10 s) until it holds. */
async function eventually(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describeWithTools('postgresql')('security changes across brokers on postgres://', () => {
  let server: PostgresServer;
  let a: RunningBroker;
  let b: RunningBroker;

  beforeAll(async () => {
    server = await postgresServer();
    const url = await server.createDatabase('pgrest_sec');
    a = await startTestBroker(url, { config: { nodeId: 1 } });
    b = await startTestBroker(url, { config: { nodeId: 2 } });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await server?.stop();
  });

  it('an ACL created through one broker is enforced by the other, and its deletion too', async () => {
    const binding = {
      resourceType: 'TOPIC',
      resourceName: 'orders',
      patternType: 'LITERAL',
      principal: 'User:alice',
      host: '*',
      operation: 'READ',
      permissionType: 'ALLOW',
    } as const;
    await a.context.storage.createAcls([binding]);
    await a.context.authorizer.reload(); // what the CreateAcls handler does on its own broker
    await eventually('broker 2 to load the ACL', () => b.context.authorizer.acls().length === 1);
    expect(b.context.authorizer.acls()).toEqual([binding]);
    await a.context.storage.deleteAcls([binding]);
    await eventually('broker 2 to drop the ACL', () => b.context.authorizer.acls().length === 0);
  });

  it('a client quota set through one broker is in force on the other', async () => {
    expect(b.context.quotas.clientQuotasOn).toBe(false);
    await a.context.storage.alterClientQuotas([
      { entity: { 'client-id': 'slow' }, set: { producer_byte_rate: 1024 }, remove: [] },
    ]);
    await eventually('broker 2 to load the quota', () => b.context.quotas.clientQuotasOn);
  });

  it('a dynamic broker config set through one broker is seen by the other within a second', async () => {
    await a.context.storage.alterBrokerConfigs('', { 'log.retention.ms': '123456' }, []);
    await eventually('broker 2 to read the config', async () => {
      return (await b.context.storage.brokerConfigs(''))['log.retention.ms'] === '123456';
    });
  });
});
