// What a broker tells clients about the cluster (server/cluster-answers.ts), with a fixed view of
// three brokers in place of the database's: Metadata, DescribeCluster and FindCoordinator name the
// other brokers with their own addresses, leaders and the coordinator by placement, the leader
// epoch is the cluster epoch; group requests for a group placed elsewhere get NOT_COORDINATOR.
import type { BrokerNode, Cluster, ClusterView, CoordinatorKind } from '../../src/cluster/cluster';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { RunningBroker } from '../../src/server/broker';
import { startTestBroker } from '../integration/helpers';

const EPOCH = 7;

/** Three brokers; this one is node `self`; topic partitions lead round-robin; keys by their first letter. */
function fixedCluster(self: number): Cluster {
  const node = (nodeId: number, host: string): BrokerNode => ({
    nodeId,
    rack: nodeId === 3 ? 'rack-b' : null,
    endpoints: [{ name: 'PLAINTEXT', host, port: 9000 + nodeId }],
  });
  // Our own entry's address is wrong on purpose: a broker answers its own from its listener.
  const brokers = [node(self, 'stale.example'), node(self + 1, 'b2.example'), node(self + 2, 'b3.example')];
  const view: ClusterView = { epoch: EPOCH, brokers };
  const owner = (key: string) => brokers[key.startsWith('here') ? 0 : 1]!;
  return {
    nodeId: self,
    shared: true,
    view: () => view,
    leaderOf: (_topic, partition) => brokers[partition % 3]!.nodeId,
    coordinatorOf: (_kind: CoordinatorKind, key: string) => owner(key),
    checkCoordinator: (_kind, key) =>
      Promise.resolve(owner(key).nodeId === self ? ErrorCode.NONE : ErrorCode.NOT_COORDINATOR),
    onChange: () => () => {},
    onCoordinatorLost: () => () => {},
    stop: () => Promise.resolve(),
  };
}

describe('cluster answers', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  let self: number;

  beforeAll(async () => {
    broker = await startTestBroker('memory://');
    self = broker.context.identity.nodeId;
    broker.context.cluster = fixedCluster(self);
    await broker.context.storage.createTopic('t', 3, {});
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn.close();
    await broker.stop();
  });

  it('Metadata lists the three brokers, the placed leaders and the cluster epoch', async () => {
    const res = await conn.send(ApiKey.Metadata, 12, {
      topics: [{ name: 't', topicId: undefined }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    expect(res.brokers).toEqual([
      { nodeId: self, host: '127.0.0.1', port: broker.port, rack: null },
      { nodeId: self + 1, host: 'b2.example', port: 9000 + self + 1, rack: null },
      { nodeId: self + 2, host: 'b3.example', port: 9000 + self + 2, rack: 'rack-b' },
    ]);
    expect(res.controllerId).toBe(self);
    const parts = res.topics[0].partitions;
    expect(parts.map((p: { leaderId: number }) => p.leaderId)).toEqual([self, self + 1, self + 2]);
    for (const p of parts) {
      expect(p.leaderEpoch).toBe(EPOCH);
      expect(p.replicaNodes).toEqual([p.leaderId]);
      expect(p.isrNodes).toEqual([p.leaderId]);
    }
  });

  it('DescribeCluster lists the three brokers', async () => {
    const res = await conn.send(ApiKey.DescribeCluster, 1, {
      includeClusterAuthorizedOperations: false,
      endpointType: 1,
    });
    expect(res.errorCode).toBe(ErrorCode.NONE);
    expect(res.brokers.map((b: { brokerId: number; host: string }) => `${b.brokerId}@${b.host}`)).toEqual([
      `${self}@127.0.0.1`,
      `${self + 1}@b2.example`,
      `${self + 2}@b3.example`,
    ]);
  });

  it('FindCoordinator names the placed broker, with its address', async () => {
    const res = await conn.send(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['here-g', 'there-g'] });
    expect(res.coordinators).toEqual([
      { key: 'here-g', nodeId: self, host: '127.0.0.1', port: broker.port, errorCode: 0, errorMessage: null },
      {
        key: 'there-g',
        nodeId: self + 1,
        host: 'b2.example',
        port: 9000 + self + 1,
        errorCode: 0,
        errorMessage: null,
      },
    ]);
    const v0 = await conn.send(ApiKey.FindCoordinator, 0, { key: 'there-txn' });
    expect(v0).toMatchObject({ errorCode: 0, nodeId: self + 1, host: 'b2.example' });
  });

  it('group requests for a group placed elsewhere get NOT_COORDINATOR; ours are served', async () => {
    const member = { generationId: 1, memberId: 'm', groupInstanceId: null };
    const join = (groupId: string) =>
      conn.send(ApiKey.JoinGroup, 5, {
        groupId,
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 10_000,
        memberId: '',
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
      });
    expect((await join('there-g')).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect((await join('here-g')).errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const sync = await conn.send(ApiKey.SyncGroup, 3, { groupId: 'there-g', ...member, assignments: [] });
    expect(sync.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect((await conn.send(ApiKey.Heartbeat, 3, { groupId: 'there-g', ...member })).errorCode).toBe(
      ErrorCode.NOT_COORDINATOR,
    );
    expect((await conn.send(ApiKey.Heartbeat, 3, { groupId: 'here-g', ...member })).errorCode).toBe(
      ErrorCode.UNKNOWN_MEMBER_ID,
    );
    const leave = await conn.send(ApiKey.LeaveGroup, 3, {
      groupId: 'there-g',
      members: [{ memberId: 'm', groupInstanceId: null }],
    });
    expect(leave.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });

  it('DescribeTopicPartitions names the placed leaders; a reassignment only to the placed replica is a no-op', async () => {
    const dtp = await conn.send(ApiKey.DescribeTopicPartitions, 0, {
      topics: [{ name: 't' }],
      responsePartitionLimit: 10,
      cursor: null,
    });
    expect(
      dtp.topics[0].partitions.map((p: { leaderId: number; replicaNodes: number[] }) => [p.leaderId, p.replicaNodes]),
    ).toEqual([
      [self, [self]],
      [self + 1, [self + 1]],
      [self + 2, [self + 2]],
    ]);
    // Partition 1 is placed on self + 1: moving it to that broker is nothing to do; to another live
    // broker, or to two, is refused (the database holds the only copy, placement picks the leader).
    const res = await conn.send(ApiKey.AlterPartitionReassignments, 0, {
      timeoutMs: 5000,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 1, replicas: [self + 1] },
            { partitionIndex: 1, replicas: [self] },
            { partitionIndex: 2, replicas: [self + 2, self] },
          ],
        },
      ],
    });
    const outcomes = res.responses[0].partitions.map((p: { errorCode: number; errorMessage: string | null }) => [
      p.errorCode,
      p.errorMessage,
    ]);
    expect(outcomes).toEqual([
      [ErrorCode.NONE, null],
      [ErrorCode.INVALID_REPLICA_ASSIGNMENT, expect.stringContaining(`keeps its replica set [${self + 1}]`)],
      [ErrorCode.INVALID_REPLICA_ASSIGNMENT, expect.stringContaining(`keeps its replica set [${self + 2}]`)],
    ]);
  });
});
