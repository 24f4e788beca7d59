// On postgres:// a consumer group moves with its coordinator lease like a classic group: the
// broker that takes it over (a second coordinator on its own connection to the same database)
// reads the stored state and the members carry on at their epochs.
import { GroupCoordinator } from '../../../src/groups/coordinator';
import { silentLogger } from '../../../src/logger';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { openStorage } from '../../../src/storage/open-storage';
import type { Storage } from '../../../src/storage/storage';
import { createTestDatabase, describeWithPostgres, TestDatabase } from '../../cluster/test-database';
import { FakeTimers } from '../fake-timers';
import { heartbeatInput } from './consumer-harness';

describeWithPostgres('a KIP-848 consumer group on postgres://', () => {
  let db: TestDatabase;
  const opened: Storage[] = [];
  beforeAll(async () => {
    db = await createTestDatabase('kip848_pg');
  }, 120_000);
  afterAll(async () => {
    for (const s of opened) s.close();
    await db?.drop();
  });

  async function coordinator() {
    const storage = await openStorage(db.url);
    opened.push(storage);
    const timers = new FakeTimers();
    const groups = new GroupCoordinator({
      storage,
      logger: silentLogger,
      now: timers.now,
      timers,
      consumer: { topicsRefreshMs: 0 },
    });
    return { storage, groups };
  }

  it('is taken over by another broker with its members, epochs and partitions', async () => {
    const a = await coordinator();
    await a.storage.createTopic('t', 4, {});
    const topicId = (await a.storage.topic('t'))!.topicId;
    const hb = (groups: GroupCoordinator, memberId: string, memberEpoch: number, owned: number[] | null) =>
      groups.consumer.heartbeat(
        heartbeatInput('pg-g', memberId, memberEpoch, () => topicId, owned, memberEpoch === 0 ? ['t'] : null),
      );
    const parts = (r: Awaited<ReturnType<typeof hb>>) => r.assignment!.topicPartitions.flatMap((tp) => tp.partitions);
    await hb(a.groups, 'm1', 0, []);
    await hb(a.groups, 'm2', 0, []);
    const kept = parts(await hb(a.groups, 'm1', 1, [0, 1, 2, 3]));
    await hb(a.groups, 'm1', 1, kept);
    const m2 = parts(await hb(a.groups, 'm2', 2, []));
    expect(a.groups.consumer.group('pg-g')!.state()).toBe('Stable');
    await a.groups.writesSettled();
    a.groups.unload('pg-g'); // the lease moved away

    const b = await coordinator();
    expect(await b.groups.loadGroup('pg-g')).toBe(ErrorCode.NONE);
    const g = b.groups.consumer.group('pg-g')!;
    expect({ epoch: g.groupEpoch, state: g.state(), members: [...g.members.keys()].sort() }).toEqual({
      epoch: 2,
      state: 'Stable',
      members: ['m1', 'm2'],
    });
    expect(await hb(b.groups, 'm1', 2, kept)).toMatchObject({ errorCode: 0, memberEpoch: 2, assignment: null });
    expect(await hb(b.groups, 'm2', 2, m2)).toMatchObject({ errorCode: 0, memberEpoch: 2, assignment: null });
    a.groups.close();
    b.groups.close();
  }, 60_000);
});
