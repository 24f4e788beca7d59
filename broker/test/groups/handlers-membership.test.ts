// The group API handlers, membership: the versions advertised, FindCoordinator (v4+ batches),
// JoinGroup / SyncGroup / Heartbeat / LeaveGroup (v3+ members) in every version.

import { ErrorCode } from '../../src/protocol/error-codes';
import { API_SPEC_BY_KEY } from '../../src/protocol/messages';
import type { ApiHandler } from '../../src/server/context';
import { groupHandlers } from '../../src/server/handlers/groups';
import { subscription } from './harness';
import { setup, K, range, joinReq, joinAndSync } from './handler-calls';
describe('advertised versions', () => {
  it('matches the issue: the ranges ApiVersions will advertise', () => {
    const ranges = Object.fromEntries(
      groupHandlers.map((h: ApiHandler) => [API_SPEC_BY_KEY.get(h.apiKey)!.name, `${h.minVersion}-${h.maxVersion}`]),
    );
    expect(ranges).toEqual({
      FindCoordinator: '0-6',
      JoinGroup: '0-9',
      SyncGroup: '0-5',
      Heartbeat: '0-4',
      LeaveGroup: '0-5',
      OffsetCommit: '0-9',
      OffsetFetch: '0-9',
      ListGroups: '0-5',
      DescribeGroups: '0-5',
      DeleteGroups: '0-2',
      OffsetDelete: '0-0',
    });
  });
});

describe('FindCoordinator', () => {
  it.each(range(0, 3))('v%i names this broker for a group', async (v) => {
    const { call } = setup();
    const r = await call(K.FindCoordinator, v, { key: 'g', keyType: 0 });
    expect(r).toMatchObject({ errorCode: 0, nodeId: 7, host: 'broker.local', port: 9999 });
  });

  it.each([4, 5, 6])('v%i answers each batched key, for groups and transactional ids', async (v) => {
    const { call } = setup();
    const r = await call(K.FindCoordinator, v, { keyType: 0, coordinatorKeys: ['a', 'b'] });
    expect(r.coordinators).toEqual([
      { key: 'a', nodeId: 7, host: 'broker.local', port: 9999, errorCode: 0, errorMessage: null },
      { key: 'b', nodeId: 7, host: 'broker.local', port: 9999, errorCode: 0, errorMessage: null },
    ]);
    const txn = await call(K.FindCoordinator, v, { keyType: 1, coordinatorKeys: ['tx'] });
    expect(txn.coordinators).toEqual([
      { key: 'tx', nodeId: 7, host: 'broker.local', port: 9999, errorCode: 0, errorMessage: null },
    ]);
  });

  it.each([1, 2, 3])('v%i names this broker for a transactional id (key type 1)', async (v) => {
    const { call } = setup();
    expect(await call(K.FindCoordinator, v, { key: 'tx', keyType: 1 })).toMatchObject({
      errorCode: 0,
      nodeId: 7,
      host: 'broker.local',
      port: 9999,
    });
  });

  it('answers an unknown key type INVALID_REQUEST', async () => {
    const { call } = setup();
    expect((await call(K.FindCoordinator, 2, { key: 'x', keyType: 9 })).errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });
});

describe('JoinGroup / SyncGroup / Heartbeat / LeaveGroup in every version', () => {
  it.each(range(0, 9))('JoinGroup v%i', async (v) => {
    const { call } = setup();
    const first = await call(K.JoinGroup, v, joinReq());
    let joined = first;
    if (v >= 4) {
      expect(first).toMatchObject({ errorCode: ErrorCode.MEMBER_ID_REQUIRED, generationId: -1 });
      expect(first.memberId).toMatch(/^client-/);
      expect(first.protocolName).toBe(v >= 7 ? null : '');
      joined = await call(K.JoinGroup, v, joinReq(first.memberId));
    }
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1, leader: joined.memberId, protocolName: 'range' });
    const s = await call(K.SyncGroup, Math.min(v, 5), {
      groupId: 'g',
      generationId: 1,
      memberId: joined.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [],
    });
    expect(s.errorCode).toBe(0);
    const { memberId, generationId } = joined;
    const hbVersion = Math.min(v, 4);
    expect(
      (await call(K.Heartbeat, hbVersion, { groupId: 'g', generationId, memberId, groupInstanceId: null })).errorCode,
    ).toBe(0);
    expect(
      (
        await call(K.Heartbeat, hbVersion, {
          groupId: 'g',
          generationId: generationId + 1,
          memberId,
          groupInstanceId: null,
        })
      ).errorCode,
    ).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  it('JoinGroup v7+ returns the protocol type; v5+ static members join without MEMBER_ID_REQUIRED', async () => {
    const { call } = setup();
    const r = await call(K.JoinGroup, 9, joinReq('', 'instance-1'));
    expect(r).toMatchObject({ errorCode: 0, protocolType: 'consumer', protocolName: 'range', skipAssignment: false });
    expect(r.members).toEqual([{ memberId: r.memberId, groupInstanceId: 'instance-1', metadata: subscription(['t']) }]);
  });

  it('JoinGroup v0 uses the session timeout as the rebalance timeout', async () => {
    const { call, groups } = setup();
    await call(K.JoinGroup, 0, joinReq());
    expect([...groups.group('g')!.members.values()][0]!.rebalanceTimeoutMs).toBe(10_000);
  });

  it('SyncGroup v5 checks the protocol name', async () => {
    const { call } = setup();
    const r = await call(K.JoinGroup, 3, joinReq());
    const s = await call(K.SyncGroup, 5, {
      groupId: 'g',
      generationId: r.generationId,
      memberId: r.memberId,
      protocolType: 'consumer',
      protocolName: 'roundrobin',
      assignments: [],
    });
    expect(s.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });

  it.each(range(0, 2))('LeaveGroup v%i: one member, its error at the top level', async (v) => {
    const { call } = setup();
    const { memberId } = await joinAndSync(call, 3);
    expect((await call(K.LeaveGroup, v, { groupId: 'g', memberId })).errorCode).toBe(0);
    expect((await call(K.LeaveGroup, v, { groupId: 'g', memberId })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it.each(range(3, 5))('LeaveGroup v%i: a batch with per-member errors', async (v) => {
    const { call } = setup();
    const { memberId } = await joinAndSync(call, 3);
    const r = await call(K.LeaveGroup, v, {
      groupId: 'g',
      members: [
        { memberId, groupInstanceId: null, reason: 'bye' },
        { memberId: 'ghost', groupInstanceId: null },
      ],
    });
    expect(r.errorCode).toBe(0);
    expect(r.members.map((m: any) => [m.memberId, m.errorCode])).toEqual([
      [memberId, 0],
      ['ghost', ErrorCode.UNKNOWN_MEMBER_ID],
    ]);
  });
});
