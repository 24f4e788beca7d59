// `minnow group list|describe|delete|reset-offsets` (runGroupCommand) against a broker with a live
// kafkajs consumer group, then with the group emptied.
import { Consumer, Kafka, logLevel } from 'kafkajs';
import { runGroupCommand } from '../../src/cli/group';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker } from './helpers';

// Group tests run with no initial rebalance delay (Kafka's 3000 ms is the broker default) to stay fast.
const NO_DELAY = 0;

const TOPIC = 'cli-topic';
const GROUP = 'cli-group';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('minnow group CLI', () => {
  let broker: RunningBroker;
  let kafka: Kafka;
  let consumer: Consumer | undefined;

  const run = async (...argv: string[]) => {
    const lines: string[] = [];
    const code = await runGroupCommand(argv, { bootstrap: `127.0.0.1:${broker.port}`, out: (l) => lines.push(l) });
    return { code, text: lines.join('\n'), json: () => JSON.parse(lines.join('\n')) };
  };

  beforeAll(async () => {
    broker = await startTestBroker('memory://', { config: { groupInitialRebalanceDelayMs: NO_DELAY } });
    kafka = new Kafka({ clientId: 'cli-test', brokers: [`127.0.0.1:${broker.port}`], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: TOPIC,
      messages: [0, 0, 0, 1, 1].map((partition, i) => ({ partition, value: `m${i}` })),
    });
    await producer.disconnect();
  });
  afterAll(async () => {
    await consumer?.disconnect().catch(() => {});
    await broker.stop();
  });

  it('describes a live group: members, assignments, committed and end offsets, lag', async () => {
    consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 6000, heartbeatInterval: 500, maxWaitTimeInMs: 200 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    let seen = 0;
    await consumer.run({ eachMessage: async () => void seen++ });
    const deadline = Date.now() + 20_000;
    let d: any;
    // Stable, everything consumed and committed (kafkajs commits after each batch).
    while (Date.now() < deadline) {
      d = (await run('describe', GROUP)).json();
      if (
        d.state === 'Stable' &&
        seen === 5 &&
        d.totalLag === 0 &&
        d.offsets.every((o: any) => o.committedOffset !== null)
      )
        break;
      await sleep(100);
    }
    expect(d).toMatchObject({
      groupId: GROUP,
      groupType: 'classic',
      state: 'Stable',
      protocolType: 'consumer',
      protocol: 'RoundRobinAssigner',
      totalLag: 0,
    });
    expect(d.members).toHaveLength(1);
    expect(d.members[0]).toMatchObject({
      clientId: 'cli-test',
      subscription: [TOPIC],
      assignment: [{ topic: TOPIC, partitions: [0, 1] }],
    });
    expect(d.offsets).toEqual([
      {
        topic: TOPIC,
        partition: 0,
        committedOffset: 3,
        endOffset: 3,
        lag: 0,
        clientId: 'cli-test',
        memberId: d.members[0].memberId,
      },
      {
        topic: TOPIC,
        partition: 1,
        committedOffset: 2,
        endOffset: 2,
        lag: 0,
        clientId: 'cli-test',
        memberId: d.members[0].memberId,
      },
    ]);
    expect((await run('list')).json()).toEqual([
      { groupId: GROUP, state: 'Stable', protocolType: 'consumer', groupType: 'classic' },
    ]);
  }, 60_000);

  it('refuses to reset offsets or delete while the group has members', async () => {
    await expect(run('reset-offsets', GROUP, '--topic', TOPIC, '--to-earliest')).rejects.toThrow(
      /offsets can only be reset while it has none/,
    );
    await expect(run('delete', GROUP)).rejects.toThrow(/still has members/);
  });

  it('resets offsets of an empty group (earliest, an offset clamped to the log end), then deletes it', async () => {
    await consumer!.disconnect();
    consumer = undefined;
    const earliest = await run('reset-offsets', GROUP, '--topic', TOPIC, '--to-earliest');
    expect(earliest.json().offsets.map((o: any) => o.offset)).toEqual([0, 0]);
    const d = (await run('describe', GROUP)).json();
    expect(d).toMatchObject({ state: 'Empty', members: [], totalLag: 5 });

    const dry = (await run('reset-offsets', GROUP, '--topic', TOPIC, '--to-offset', '99', '--dry-run')).json();
    expect(dry.offsets.map((o: any) => o.offset)).toEqual([3, 2]);
    expect((await run('describe', GROUP)).json().totalLag).toBe(5); // dry run changed nothing
    await run('reset-offsets', GROUP, '--topic', TOPIC, '--to-latest');
    expect((await run('describe', GROUP)).json().totalLag).toBe(0);

    expect((await run('delete', GROUP)).json()).toEqual({ deleted: GROUP });
    expect((await run('list')).json()).toEqual([]);
    await expect(run('delete', GROUP)).rejects.toThrow(/GROUP_ID_NOT_FOUND/);
  }, 30_000);

  it('lists and describes a KIP-848 consumer group with its type, epochs and assignments', async () => {
    const consumerGroup = 'cli-kip848';
    const joined = await broker.context.groups.consumer.heartbeat({
      groupId: consumerGroup,
      memberId: 'cli-member',
      memberEpoch: 0,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: [TOPIC],
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: [],
      clientId: 'cli-848',
      clientHost: '/127.0.0.1',
    });
    expect(joined.errorCode).toBe(0);
    expect((await run('list')).json()).toContainEqual({
      groupId: consumerGroup,
      state: 'Stable',
      protocolType: 'consumer',
      groupType: 'consumer',
    });
    const d = (await run('describe', consumerGroup)).json();
    expect(d).toMatchObject({
      groupType: 'consumer',
      state: 'Stable',
      groupEpoch: 1,
      assignor: 'uniform',
      members: [
        {
          memberId: 'cli-member',
          memberEpoch: 1,
          clientId: 'cli-848',
          subscription: [TOPIC],
          assignment: [{ topic: TOPIC, partitions: [0, 1] }],
        },
      ],
    });
    expect(d.offsets.map((o: any) => o.memberId)).toEqual(['cli-member', 'cli-member']);
    await expect(run('reset-offsets', consumerGroup, '--topic', TOPIC, '--to-earliest')).rejects.toThrow(
      /is Stable with 1 member/,
    );
  });

  it('explains its usage', async () => {
    expect((await run('--help')).text).toMatch(/minnow group reset-offsets GROUP --topic TOPIC/);
    expect((await run()).code).toBe(2);
    await expect(run('reset-offsets', GROUP, '--topic', TOPIC)).rejects.toThrow(/exactly one of --to-earliest/);
    await expect(run('describe')).rejects.toThrow(/needs a group id/);
  });
});
