// `minnow group list|describe|delete` of a KIP-932 share group (runGroupCommand): its type, state,
// epochs, members with their assignments, and per share-partition the start and end offsets; a
// member here is this test heartbeating (ShareGroupHeartbeat), the start offsets set with
// AlterShareGroupOffsets once it left.
import { Kafka, logLevel } from 'kafkajs';
import { runGroupCommand } from '../../src/cli/group';
import { KafkaClient } from '../../src/client/client';
import type { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import type { AlterShareGroupOffsetsResponse, ShareGroupHeartbeatResponse } from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker } from './helpers';

const TOPIC = 'share-cli-topic';
const GROUP = 'share-cli-group';
const MEMBER = 'c2hhcmUtY2xpLXRlc3Rlcg';

describe('minnow group CLI with a share group', () => {
  let broker: RunningBroker;
  let client: KafkaClient;
  let conn: KafkaConnection;

  const run = async (...argv: string[]) => {
    const lines: string[] = [];
    const code = await runGroupCommand(argv, { bootstrap: `127.0.0.1:${broker.port}`, out: (l) => lines.push(l) });
    return { code, json: () => JSON.parse(lines.join('\n')) };
  };
  const heartbeat = async (memberEpoch: number): Promise<ShareGroupHeartbeatResponse> =>
    conn.send(ApiKey.ShareGroupHeartbeat, 1, {
      groupId: GROUP,
      memberId: MEMBER,
      memberEpoch,
      rackId: null,
      subscribedTopicNames: memberEpoch === 0 ? [TOPIC] : null,
    });

  beforeAll(async () => {
    broker = await startTestBroker('memory://');
    client = new KafkaClient(`127.0.0.1:${broker.port}`);
    conn = await client.connect();
    await client.createTopic(TOPIC, 2, {});
    const kafka = new Kafka({
      clientId: 'share-cli',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: ['a', 'b', 'c'].map((value) => ({ partition: 0, value })) });
    await producer.disconnect();
  });
  afterAll(async () => {
    client?.close();
    await broker.stop();
  });

  it('lists and describes a share group with a member: type, state, epochs, assignment', async () => {
    expect((await heartbeat(0)).errorCode).toBe(0);
    const list = (await run('list')).json();
    expect(list).toContainEqual({ groupId: GROUP, state: 'Stable', protocolType: 'share', groupType: 'share' });
    const d = (await run('describe', GROUP)).json();
    expect(d).toMatchObject({ groupId: GROUP, groupType: 'share', state: 'Stable', groupEpoch: 1, assignor: 'simple' });
    expect(d.members).toEqual([
      expect.objectContaining({
        memberId: MEMBER,
        memberEpoch: 1,
        subscription: [TOPIC],
        assignment: [{ topic: TOPIC, partitions: [0, 1] }],
      }),
    ]);
    // Assigned, never fetched: no start offset yet (Kafka answers -1 until the first change).
    expect(d.offsets).toEqual([
      { topic: TOPIC, partition: 0, startOffset: null, endOffset: 3, notBeforeStart: null },
      { topic: TOPIC, partition: 1, startOffset: null, endOffset: 0, notBeforeStart: null },
    ]);
  });

  it('describes the start offsets AlterShareGroupOffsets set once the member left, then deletes the group', async () => {
    expect((await heartbeat(-1)).errorCode).toBe(0);
    const altered: AlterShareGroupOffsetsResponse = await conn.send(ApiKey.AlterShareGroupOffsets, 0, {
      groupId: GROUP,
      topics: [{ topicName: TOPIC, partitions: [{ partitionIndex: 0, startOffset: 1n }] }],
    });
    expect(altered.errorCode).toBe(0);
    const d = (await run('describe', GROUP)).json();
    expect(d).toMatchObject({ groupType: 'share', state: 'Empty', members: [] });
    expect(d.offsets).toEqual([{ topic: TOPIC, partition: 0, startOffset: 1, endOffset: 3, notBeforeStart: 2 }]);
    expect((await run('delete', GROUP)).json()).toEqual({ deleted: GROUP });
    expect((await run('list')).json()).not.toContainEqual(expect.objectContaining({ groupId: GROUP }));
  });
});
