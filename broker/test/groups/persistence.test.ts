// Group membership across a restart (groups/group-persistence.ts): what the end of a rebalance
// stores, a new coordinator on the same storage loads on the group's first touch, with the members'
// session timers restarted; an Empty group keeps its generation; DeleteGroups deletes the row.
import { ErrorCode } from '../../src/protocol/error-codes';
import { GroupState } from '../../src/groups/group-state';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { flush, GROUP, harness, heartbeat, join, SESSION_MS, stableSingle, sync } from './harness';

describe('group membership across a restart', () => {
  it('a stable member heartbeats and commits on with its generation after the load', async () => {
    const storage = new MemoryStorage();
    storage.createTopic('t', 1, {});
    const first = harness({ storage });
    const { memberId, generationId } = await stableSingle(first.coord);
    await flush();
    expect(storage.groupMetadata(GROUP)).toMatchObject({ generationId, leaderId: memberId, protocolName: 'range' });
    first.coord.close();

    const { coord, timers } = harness({ storage });
    expect(await coord.loadGroup(GROUP)).toBe(ErrorCode.NONE);
    expect(coord.group(GROUP)?.state).toBe(GroupState.Stable);
    expect(heartbeat(coord, memberId, generationId)).toBe(ErrorCode.NONE);
    const commit = await coord.commitOffsets({
      groupId: GROUP,
      generationId,
      memberId,
      groupInstanceId: null,
      offsets: [{ topic: 't', partition: 0, offset: 5, leaderEpoch: -1, metadata: null }],
    });
    expect(commit).toEqual([ErrorCode.NONE]);
    // A Stable group answers the member's SyncGroup with the stored assignment.
    const s = sync(coord, memberId, generationId);
    await flush();
    expect(s.value?.assignment.length).toBeGreaterThan(0);

    // A member that stops heartbeating after the load is removed as usual.
    timers.advance(SESSION_MS + 1);
    await flush();
    expect(coord.group(GROUP)?.state).toBe(GroupState.Empty);
    expect(coord.group(GROUP)?.generationId).toBe(generationId + 1);
    await flush();
    expect(storage.groupMetadata(GROUP)).toMatchObject({ generationId: generationId + 1, members: [] });
  });

  it('an Empty group comes back with its generation; DeleteGroups deletes what is stored', async () => {
    const storage = new MemoryStorage();
    const first = harness({ storage });
    const { memberId } = await stableSingle(first.coord);
    first.coord.leaveGroup(GROUP, [{ memberId, groupInstanceId: null }]);
    await flush();
    first.coord.close();

    const { coord } = harness({ storage });
    await coord.loadGroup(GROUP);
    expect({ state: coord.group(GROUP)?.state, generation: coord.group(GROUP)?.generationId }).toEqual({
      state: GroupState.Empty,
      generation: 2,
    });
    const j = join(coord);
    await flush();
    expect(j.value?.generationId).toBe(3);
    coord.leaveGroup(GROUP, [{ memberId: j.value!.memberId, groupInstanceId: null }]);
    expect(await coord.deleteGroups([GROUP])).toEqual([{ groupId: GROUP, errorCode: ErrorCode.NONE }]);
    expect(storage.groupMetadata(GROUP)).toBeUndefined();
  });

  it('a group unloaded (its coordination moved) is read again when it comes back', async () => {
    const storage = new MemoryStorage();
    const { coord } = harness({ storage });
    const { memberId, generationId } = await stableSingle(coord);
    await flush();
    coord.unload(GROUP);
    expect(heartbeat(coord, memberId, generationId)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(await coord.loadGroup(GROUP)).toBe(ErrorCode.NONE);
    expect(heartbeat(coord, memberId, generationId)).toBe(ErrorCode.NONE);
  });
});
