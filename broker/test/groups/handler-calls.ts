// The group API handlers called as the server calls them (the request through the codec, the
// response encoded and decoded in the asked version), on a memory engine and fake timers: shared by
// handlers-*.test.ts.
import { promised } from '../../src/storage/sync-adapter';
import { GroupCoordinator } from '../../src/groups/coordinator';
import { TransactionCoordinator } from '../../src/transactions/coordinator';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { API_SPEC_BY_KEY } from '../../src/protocol/messages';
import { Reader } from '../../src/protocol/reader';
import { Writer } from '../../src/protocol/writer';
import { newSession, PLAINTEXT_LISTENER } from '../../src/server/session';
import { Authorizer } from '../../src/server/authorizer';
import type { BrokerContext, RequestContext } from '../../src/server/context';
import { groupHandlers } from '../../src/server/handlers/groups';
import { silentLogger } from '../../src/logger';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { FakeTimers } from './fake-timers';
import { subscription } from './harness';
import { ShareGroups } from '../../src/groups/share/share-groups';

export function setup() {
  const engine = new MemoryStorage();
  engine.createTopic('t', 2, {});
  const storage = promised(engine);
  const timers = new FakeTimers();
  // 0: these tests drive one rebalance at a time and do not advance the fake clock for Kafka's 3 s delay.
  const groups = new GroupCoordinator({
    storage,
    logger: silentLogger,
    now: timers.now,
    timers,
    initialRebalanceDelayMs: 0,
  });
  const transactions = new TransactionCoordinator({ storage, logger: silentLogger, now: timers.now, timers, groups });
  const shareGroups = new ShareGroups({
    storage,
    logger: silentLogger,
    now: timers.now,
    fetchWaiters: { wait: () => Promise.resolve(), notify: () => {} },
  });
  const broker = {
    storage,
    groups,
    shareGroups,
    transactions,
    identity: { clusterId: 'c', nodeId: 7 },
    advertised: { host: 'broker.local', port: 9999 },
    logger: silentLogger,
    now: timers.now,
    authorizer: new Authorizer(storage, { superUsers: [], allowEveryoneIfNoAclFound: true }),
  } as unknown as BrokerContext;
  const handler = (apiKey: number) => groupHandlers.find((h) => h.apiKey === apiKey)!;
  /** Calls the handler as the server would, then encodes and decodes the response in that version. */
  const call = async (apiKey: number, apiVersion: number, req: unknown, clientId = 'client'): Promise<any> => {
    const ctx: RequestContext = {
      broker,
      apiKey,
      apiVersion,
      correlationId: 1,
      clientId,
      connectionId: 1,
      clientHost: '/127.0.0.1',
      session: newSession(PLAINTEXT_LISTENER, '127.0.0.1'),
    };
    const spec = API_SPEC_BY_KEY.get(apiKey)!;
    // The request goes through the codec too, so version-dependent defaults apply as on the wire.
    const rw = new Writer();
    spec.encodeRequest(rw, apiVersion, req);
    const decodedReq = spec.decodeRequest(new Reader(rw.toBuffer()), apiVersion);
    const body = await handler(apiKey).handle(ctx, decodedReq);
    const w = new Writer();
    spec.encodeResponse(w, apiVersion, body);
    return spec.decodeResponse(new Reader(w.toBuffer()), apiVersion);
  };
  return { storage, engine, groups, call, timers };
}

/** The group APIs' keys (ApiKey, under the short name the tests use). */
export const K = ApiKey;
export const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

export const joinReq = (memberId = '', groupInstanceId: string | null = null) => ({
  groupId: 'g',
  sessionTimeoutMs: 10_000,
  rebalanceTimeoutMs: 20_000,
  memberId,
  groupInstanceId,
  protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: subscription(['t']) }],
  reason: null,
});

/** Joins and syncs one member at JoinGroup/SyncGroup `v`; returns its id and generation. */
export async function joinAndSync(
  call: ReturnType<typeof setup>['call'],
  v: number,
): Promise<{ memberId: string; generationId: number }> {
  let r = await call(K.JoinGroup, v, joinReq());
  if (r.errorCode === ErrorCode.MEMBER_ID_REQUIRED) r = await call(K.JoinGroup, v, joinReq(r.memberId));
  expect(r.errorCode).toBe(0);
  const s = await call(K.SyncGroup, Math.min(v, 5), {
    groupId: 'g',
    generationId: r.generationId,
    memberId: r.memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [],
  });
  expect(s.errorCode).toBe(0);
  return { memberId: r.memberId, generationId: r.generationId };
}
