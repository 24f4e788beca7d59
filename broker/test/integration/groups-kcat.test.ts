// kcat's balanced consumer (-G, librdkafka 2.0.2: JoinGroup v5 with the MEMBER_ID_REQUIRED round
// trip, SyncGroup v3, OffsetFetch v7, OffsetCommit v7, LeaveGroup v1) on both engines: it consumes
// everything and commits on close; the next run of the same group starts after the commits.
//
// Not `-o beginning`: in -G mode kcat applies it to every assigned partition, overriding committed
// offsets ("Starting pending assigned partition ... at offset BEGINNING" in its cgrp debug log), so
// a first run from the start is asked for with auto.offset.reset=earliest instead.
import { ErrorCode } from '../../src/protocol/error-codes';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { Engine, kcat, startTestBroker, storageUrlFor, tempDir } from './helpers';

// Group tests run with no initial rebalance delay (Kafka's 3000 ms is the broker default) to stay fast.
const NO_DELAY = 0;

// fetch.wait.max.ms=100: kcat -e exits once every partition reported its end, which shows when a
// fetch comes back empty, and the broker holds that fetch for librdkafka's 500 ms default.
const consumeGroup = (broker: RunningBroker, group: string, topic: string) =>
  kcat(
    broker,
    [
      '-G',
      group,
      topic,
      '-X',
      'auto.offset.reset=earliest',
      '-X',
      'fetch.wait.max.ms=100',
      '-e',
      '-q',
      '-f',
      '%p:%o:%s\n',
    ],
    { timeoutMs: 30_000 },
  );

const lines = (out: string) => out.split('\n').filter((l) => l !== '');

describeWithTools('kcat').each<Engine>(['memory', 'sqlite'])('kcat balanced consumer on %s storage', (engine) => {
  const tmp = tempDir();
  let broker: RunningBroker;

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor(engine, tmp.dir), {
      config: { numPartitions: 3, groupInitialRebalanceDelayMs: NO_DELAY },
    });
  });
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it('consumes everything and commits; a second run gets only what is new, a third nothing', async () => {
    const topic = `kcat-group-${engine}`;
    const first = Array.from({ length: 30 }, (_, i) => `k${i}:first-${i}`);
    expect((await kcat(broker, ['-P', '-t', topic, '-K', ':'], { input: first.join('\n') + '\n' })).code).toBe(0);
    expect((await broker.context.storage.topic(topic))!.partitionCount).toBe(3);

    const run1 = await consumeGroup(broker, 'kcat-g', topic);
    expect(run1.code).toBe(0);
    const got1 = lines(run1.stdout);
    expect(got1.map((l) => l.split(':')[2]).sort()).toEqual(first.map((l) => l.split(':')[1]).sort());

    // The group's commits reach the end of every partition.
    const fetched = await broker.context.groups.fetchOffsets('kcat-g', [{ name: topic, partitions: [0, 1, 2] }]);
    expect(fetched.errorCode).toBe(ErrorCode.NONE);
    for (const p of fetched.topics[0]!.partitions)
      expect(p.offset).toBe((await broker.context.storage.offsets(topic, p.partition))!.highWatermark);
    expect(await broker.context.groups.describeGroup('kcat-g')).toMatchObject({
      groupState: 'Empty',
      protocolType: 'consumer',
      members: [],
    });

    const second = Array.from({ length: 9 }, (_, i) => `n${i}:second-${i}`);
    await kcat(broker, ['-P', '-t', topic, '-K', ':'], { input: second.join('\n') + '\n' });
    const run2 = await consumeGroup(broker, 'kcat-g', topic);
    expect(run2.code).toBe(0);
    expect(
      lines(run2.stdout)
        .map((l) => l.split(':')[2])
        .sort(),
    ).toEqual(second.map((l) => l.split(':')[1]).sort());

    const run3 = await consumeGroup(broker, 'kcat-g', topic);
    expect(run3.code).toBe(0);
    expect(lines(run3.stdout)).toEqual([]);

    // Another group is independent and starts from the beginning.
    const other = await consumeGroup(broker, 'kcat-other', topic);
    expect(lines(other.stdout)).toHaveLength(first.length + second.length);
    expect((await broker.context.groups.listGroups()).map((g) => g.groupId).sort()).toEqual(['kcat-g', 'kcat-other']);
  }, 120_000);
});
