// The group API handlers, administration: ListGroups, DescribeGroups, DeleteGroups in every version.

import { ErrorCode } from '../../src/protocol/error-codes';
import { subscription } from './harness';
import { setup, K, range, joinAndSync } from './handler-calls';
describe('admin', () => {
  it.each(range(0, 5))('ListGroups v%i (state filter from v4, type filter from v5)', async (v) => {
    const { call } = setup();
    await joinAndSync(call, 3);
    await call(K.OffsetCommit, 8, {
      groupId: 'old',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    });
    const all = await call(K.ListGroups, v, { statesFilter: [], typesFilter: [] });
    expect(all.groups.map((g: any) => g.groupId).sort()).toEqual(['g', 'old']);
    if (v >= 4) expect(all.groups.find((g: any) => g.groupId === 'old').groupState).toBe('Empty');
    const filtered = await call(K.ListGroups, v, { statesFilter: ['Stable'], typesFilter: [] });
    expect(filtered.groups.map((g: any) => g.groupId).sort()).toEqual(v >= 4 ? ['g'] : ['g', 'old']);
    if (v >= 5) {
      expect((await call(K.ListGroups, v, { statesFilter: [], typesFilter: ['consumer'] })).groups).toEqual([]);
      expect((await call(K.ListGroups, v, { statesFilter: [], typesFilter: ['classic'] })).groups).toHaveLength(2);
    }
  });

  it.each(range(0, 5))('DescribeGroups v%i', async (v) => {
    const { call } = setup();
    const { memberId } = await joinAndSync(call, 5);
    const r = await call(K.DescribeGroups, v, { groups: ['g', 'nope'], includeAuthorizedOperations: true });
    expect(r.groups[0]).toMatchObject({
      errorCode: 0,
      groupId: 'g',
      groupState: 'Stable',
      protocolType: 'consumer',
      protocolData: 'range',
    });
    expect(r.groups[0].members[0]).toMatchObject({ memberId, clientId: 'client', memberMetadata: subscription(['t']) });
    if (v >= 3) expect(r.groups[0].authorizedOperations).toBe((1 << 3) | (1 << 6) | (1 << 8));
    expect(r.groups[1]).toMatchObject({ errorCode: 0, groupId: 'nope', groupState: 'Dead', members: [] });
  });

  it.each([0, 1, 2])('DeleteGroups v%i', async (v) => {
    const { call } = setup();
    const { memberId } = await joinAndSync(call, 3);
    expect((await call(K.DeleteGroups, v, { groupsNames: ['g'] })).results).toEqual([
      { groupId: 'g', errorCode: ErrorCode.NON_EMPTY_GROUP },
    ]);
    await call(K.LeaveGroup, 1, { groupId: 'g', memberId });
    expect((await call(K.DeleteGroups, v, { groupsNames: ['g', 'nope'] })).results).toEqual([
      { groupId: 'g', errorCode: 0 },
      { groupId: 'nope', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    ]);
  });
});
