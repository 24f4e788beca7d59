// Calls handlers as the server does (request and answer through the codec in the version asked)
// on a broker context of memory storage and a group coordinator, for handler tests.
import { API_SPEC_BY_KEY } from '../../src/protocol/messages';
import { Reader } from '../../src/protocol/reader';
import { Writer } from '../../src/protocol/writer';
import { newSession, PLAINTEXT_LISTENER } from '../../src/server/session';
import type { BrokerContext, RequestContext } from '../../src/server/context';
import { createHandlers } from '../../src/server/handlers';
import { Authorizer } from '../../src/server/authorizer';
import { GroupCoordinator, GroupCoordinatorOptions } from '../../src/groups/coordinator';
import { ShareGroups, type ShareGroupsOptions } from '../../src/groups/share/share-groups';
import { silentLogger } from '../../src/logger';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { promised } from '../../src/storage/sync-adapter';

const handlers = createHandlers();

export function handlerBroker(
  consumer: GroupCoordinatorOptions['consumer'] = {},
  share: Partial<ShareGroupsOptions> = {},
) {
  const engine = new MemoryStorage();
  const storage = promised(engine);
  const groups = new GroupCoordinator({ storage, logger: silentLogger, consumer });
  const shareGroups = new ShareGroups({
    storage,
    logger: silentLogger,
    now: Date.now,
    fetchWaiters: { wait: () => Promise.resolve(), notify: () => {} },
    ...share,
  });
  const broker = {
    storage,
    groups,
    shareGroups,
    identity: { clusterId: 'c', nodeId: 7 },
    logger: silentLogger,
    now: Date.now,
    authorizer: new Authorizer(storage, { superUsers: [], allowEveryoneIfNoAclFound: true }),
    // What the fetch paths read: the broker's fetch.max.bytes and no client quota.
    config: { fetchMaxBytes: 55 * 1024 * 1024 },
    quotas: { fetch: { maxValueInQuotaWindow: () => Number.POSITIVE_INFINITY } },
  } as unknown as BrokerContext;
  return { engine, groups, shareGroups, broker };
}

export async function call(broker: BrokerContext, apiKey: number, version: number, body: unknown): Promise<any> {
  const spec = API_SPEC_BY_KEY.get(apiKey)!;
  const rw = new Writer();
  spec.encodeRequest(rw, version, body);
  const req = spec.decodeRequest(new Reader(rw.toBuffer()), version);
  const ctx = {
    broker,
    apiKey,
    apiVersion: version,
    correlationId: 1,
    clientId: 'c',
    connectionId: 1,
    clientHost: '/127.0.0.1',
    session: newSession(PLAINTEXT_LISTENER, '127.0.0.1'),
  } as RequestContext;
  const out = await handlers.get(apiKey)!.handle(ctx, req);
  const w = new Writer();
  spec.encodeResponse(w, version, out);
  return spec.decodeResponse(new Reader(w.toBuffer()), version);
}
