// franz-go's TestTxnEtl (issue 30 item 7): a group leader's transaction spans two eager rebalances
// while its produce batches are in flight. The requests go over the connections franz-go uses
// (group joins on one, produce on another, the transaction and group calls on a third), in the
// order of its log: AddPartitionsToTxn, pipelined produces, a member joining (heartbeat
// REBALANCE_IN_PROGRESS, rejoin), AddOffsetsToTxn and TxnOffsetCommit while the rejoin is held,
// the member leaving (a second rebalance), EndTxn abort, then a new transaction. Every produce must
// be answered, in order, and the aborted transaction must leave the next one free to commit.
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode as E } from '../../src/protocol/error-codes';
import * as m from '../../src/protocol/messages';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker } from '../integration/helpers';
import { txnProduceRequest } from './harness';

type Producer = { producerId: bigint; producerEpoch: number };

const TXN = 'etl-leader';
const GROUP = 'etl';
const JOIN = {
  ...m.defaultJoinGroupRequest(),
  groupId: GROUP,
  sessionTimeoutMs: 30_000,
  rebalanceTimeoutMs: 30_000,
  protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
};

describe('a transaction across two eager rebalances (franz-go TestTxnEtl)', () => {
  let broker: RunningBroker;
  const conns: KafkaConnection[] = [];
  const connect = async () => {
    const c = await KafkaConnection.connect('127.0.0.1', broker.port);
    conns.push(c);
    return c;
  };

  beforeAll(async () => {
    broker = await startTestBroker('memory://', { config: { groupInitialRebalanceDelayMs: 0 } });
    await broker.context.storage.createTopic('in', 2, {});
    await broker.context.storage.createTopic('out', 2, {});
  });
  afterAll(async () => {
    for (const c of conns) c.close();
    await broker?.stop();
  });

  /** JoinGroup from scratch (MEMBER_ID_REQUIRED, then with the id); resolves with the join answer. */
  const join = async (c: KafkaConnection, memberId = ''): Promise<m.JoinGroupResponse> => {
    const first: m.JoinGroupResponse = await c.send(ApiKey.JoinGroup, 5, { ...JOIN, memberId });
    if (first.errorCode !== E.MEMBER_ID_REQUIRED) return first;
    return c.send(ApiKey.JoinGroup, 5, { ...JOIN, memberId: first.memberId });
  };
  const sync = (c: KafkaConnection, memberId: string, generationId = -1, leader: boolean, members: string[]) =>
    c.send(ApiKey.SyncGroup, 3, {
      groupId: GROUP,
      generationId,
      memberId,
      groupInstanceId: null,
      assignments: leader ? members.map((id) => ({ memberId: id, assignment: Buffer.alloc(0) })) : [],
    });
  const heartbeat = (c: KafkaConnection, memberId: string, generationId = -1) =>
    c.send(ApiKey.Heartbeat, 3, { groupId: GROUP, generationId, memberId, groupInstanceId: null });

  it('answers every produce and lets the next transaction commit', async () => {
    const [leaderGroup, txnConn, produceConn, otherGroup] = [
      await connect(),
      await connect(),
      await connect(),
      await connect(),
    ];

    // The leader alone: generation 1.
    const joined = await join(leaderGroup);
    expect(joined.errorCode).toBe(E.NONE);
    const leader = joined.memberId;
    expect((await sync(leaderGroup, leader, joined.generationId, true, [leader])).errorCode).toBe(E.NONE);

    const init = await txnConn.send(ApiKey.InitProducerId, 4, {
      ...m.defaultInitProducerIdRequest(),
      transactionalId: TXN,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    expect(init.errorCode).toBe(E.NONE);
    const p: Producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
    const addPartitions = () =>
      txnConn.send(ApiKey.AddPartitionsToTxn, 3, {
        v3AndBelowTransactionalId: TXN,
        v3AndBelowProducerId: p.producerId,
        v3AndBelowProducerEpoch: p.producerEpoch,
        v3AndBelowTopics: [{ name: 'out', partitions: [0, 1] }],
      });
    const sequences = [0, 0];
    const inFlight: Promise<m.ProduceResponse>[] = [];
    /** Pipelined, as franz-go's produce connection: sent now, awaited at the end. */
    const produce = (n: number) => {
      for (let i = 0; i < n; i++) {
        const partition = i % 2;
        const request = txnProduceRequest(TXN, 'out', partition, p, `r${inFlight.length}`, sequences[partition]!++);
        inFlight.push(produceConn.send(ApiKey.Produce, 9, request));
      }
    };
    const partitionErrors = (rs: m.ProduceResponse[]) =>
      rs.map((r) => r.responses[0]!.partitionResponses[0]!.errorCode);

    expect(
      (await addPartitions()).resultsByTopicV3AndBelow[0].resultsByPartition.map((r: any) => r.partitionErrorCode),
    ).toEqual([E.NONE, E.NONE]);
    produce(6);

    // A second member joins: its JoinGroup is held until the leader rejoins (first eager rebalance).
    const otherJoined = join(otherGroup);
    let beat = await heartbeat(txnConn, leader, joined.generationId);
    for (let i = 0; i < 100 && beat.errorCode === E.NONE; i++) {
      await new Promise((r) => setTimeout(r, 20));
      beat = await heartbeat(txnConn, leader, joined.generationId);
    }
    expect(beat.errorCode).toBe(E.REBALANCE_IN_PROGRESS);
    // The leader revokes and rejoins; meanwhile its transaction goes on over the other connections.
    const rejoined = leaderGroup.send(ApiKey.JoinGroup, 5, { ...JOIN, memberId: leader });
    produce(6);
    expect(
      (await txnConn.send(ApiKey.AddOffsetsToTxn, 3, { transactionalId: TXN, ...p, groupId: GROUP })).errorCode,
    ).toBe(E.NONE);
    const offsets = await txnConn.send(ApiKey.TxnOffsetCommit, 3, {
      ...m.defaultTxnOffsetCommitRequest(),
      transactionalId: TXN,
      groupId: GROUP,
      ...p,
      generationId: joined.generationId,
      memberId: leader,
      groupInstanceId: null,
      topics: [{ name: 'in', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedMetadata: null }] }],
    });
    expect(offsets.topics[0].partitions[0].errorCode).not.toBe(E.UNKNOWN_SERVER_ERROR);
    const [second, other] = [await rejoined, await otherJoined];
    expect([second.errorCode, other.errorCode]).toEqual([E.NONE, E.NONE]);
    const leaderOf2 = second.leader;
    const members = second.members.map((x: { memberId: string }) => x.memberId);
    await Promise.all([
      sync(leaderGroup, leader, second.generationId, leaderOf2 === leader, members),
      sync(otherGroup, other.memberId, other.generationId, leaderOf2 === other.memberId, members),
    ]);

    // The second member leaves: the second eager rebalance, with produces still in flight.
    produce(6);
    expect(
      (
        await otherGroup.send(ApiKey.LeaveGroup, 3, {
          groupId: GROUP,
          members: [{ memberId: other.memberId, groupInstanceId: null }],
        })
      ).errorCode,
    ).toBe(E.NONE);
    expect((await heartbeat(txnConn, leader, second.generationId)).errorCode).toBe(E.REBALANCE_IN_PROGRESS);
    const third = await leaderGroup.send(ApiKey.JoinGroup, 5, { ...JOIN, memberId: leader });
    expect(third.errorCode).toBe(E.NONE);
    expect((await sync(leaderGroup, leader, third.generationId, true, [leader])).errorCode).toBe(E.NONE);

    // Every produce answered, in send order, NONE, at increasing offsets per partition.
    const answered = await Promise.all(inFlight);
    expect(partitionErrors(answered)).toEqual(answered.map(() => E.NONE));
    for (const partition of [0, 1]) {
      const bases = answered
        .map((r) => r.responses[0]!.partitionResponses[0]!)
        .filter((r) => r.index === partition)
        .map((r) => r.baseOffset);
      expect(bases).toEqual([...bases].sort((a, b) => (a < b ? -1 : 1)));
    }

    // Revoked: the transaction aborts, and the next one commits.
    expect((await txnConn.send(ApiKey.EndTxn, 3, { transactionalId: TXN, ...p, committed: false })).errorCode).toBe(
      E.NONE,
    );
    expect(
      (await addPartitions()).resultsByTopicV3AndBelow[0].resultsByPartition.map((r: any) => r.partitionErrorCode),
    ).toEqual([E.NONE, E.NONE]);
    inFlight.length = 0;
    produce(2);
    expect(partitionErrors(await Promise.all(inFlight))).toEqual([E.NONE, E.NONE]);
    expect((await txnConn.send(ApiKey.EndTxn, 3, { transactionalId: TXN, ...p, committed: true })).errorCode).toBe(
      E.NONE,
    );
    const state = await broker.context.storage.transaction(TXN);
    expect(state).toMatchObject({ state: 'CompleteCommit', producerEpoch: p.producerEpoch });
  }, 30_000);
});
