// A share group's membership is stored (KIP-932; as the KIP-848 groups' is): after a restart the
// group is loaded back when first used, its members keep their ids, epochs and assignments, and a
// member's next heartbeat carries on (it was UNKNOWN_MEMBER_ID when membership lived in memory).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GroupCoordinator } from '../../../src/groups/coordinator';
import { ShareGroups } from '../../../src/groups/share/share-groups';
import { silentLogger } from '../../../src/logger';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { openStorage } from '../../../src/storage/open-storage';
import type { AsyncStorage } from '../../../src/storage/storage';
import { MEMBER_A, MEMBER_B } from './share-test-kit';

function broker(storage: AsyncStorage) {
  const groups = new GroupCoordinator({ storage, logger: silentLogger });
  const share = new ShareGroups({
    storage,
    logger: silentLogger,
    now: Date.now,
    fetchWaiters: { wait: () => Promise.resolve(), notify: () => {} },
  });
  groups.attachShare(share.coordinator);
  return { groups, share };
}

const heartbeat = (share: ShareGroups, memberId: string, memberEpoch: number, topics: string[] | null = null) =>
  share.coordinator.heartbeat({
    groupId: 'g',
    memberId,
    memberEpoch,
    rackId: null,
    subscribedTopicNames: topics,
    clientId: 'c',
    clientHost: '/127.0.0.1',
  });

describe('share-group membership across a restart (sqlite)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-share-members-'));
  const url = `sqlite://${path.join(dir, 'share.db')}`;
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps members, epochs and assignments; a member leaving after the restart is stored too', async () => {
    let storage = await openStorage(url);
    const topic = await storage.createTopic('jobs', 2, {});
    let b = broker(storage);
    await heartbeat(b.share, MEMBER_A, 0, ['jobs']);
    const joinedB = await heartbeat(b.share, MEMBER_B, 0, ['jobs']);
    const a = await heartbeat(b.share, MEMBER_A, 1);
    expect([a.errorCode, joinedB.errorCode]).toEqual([0, 0]);
    const before = b.share.coordinator.group('g')!;
    const epochBefore = before.groupEpoch;
    const assignmentOfA = new Map(before.members.get(MEMBER_A)!.assignment);
    expect([...assignmentOfA.keys()]).toEqual([topic.topicId]);
    await b.share.writesSettled();
    b.share.close();
    b.groups.close();
    await storage.close();

    storage = await openStorage(url);
    b = broker(storage);
    expect(await b.groups.loadGroup('g')).toBe(ErrorCode.NONE);
    const group = b.share.coordinator.group('g')!;
    expect({ epoch: group.groupEpoch, members: [...group.members.keys()].sort() }).toEqual({
      epoch: epochBefore,
      members: [MEMBER_A, MEMBER_B].sort(),
    });
    expect(group.members.get(MEMBER_A)!.assignment).toEqual(assignmentOfA);
    // The same member id and epoch carry on: no UNKNOWN_MEMBER_ID, no new epoch.
    expect(await heartbeat(b.share, MEMBER_A, a.memberEpoch)).toMatchObject({
      errorCode: ErrorCode.NONE,
      memberEpoch: a.memberEpoch,
    });
    expect(b.groups.group('g')).toBeUndefined(); // not taken for a classic group
    await heartbeat(b.share, MEMBER_B, -1);
    await b.share.writesSettled();
    b.share.close();
    b.groups.close();
    await storage.close();

    storage = await openStorage(url);
    b = broker(storage);
    await b.groups.loadGroup('g');
    expect([...b.share.coordinator.group('g')!.members.keys()]).toEqual([MEMBER_A]);
    b.share.close();
    b.groups.close();
    await storage.close();
  });
});
