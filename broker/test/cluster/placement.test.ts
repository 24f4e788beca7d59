import type { BrokerNode } from '../../src/cluster/cluster';
import { endpointOf } from '../../src/cluster/cluster';
import { coordinatorIndex, coordinatorOf, javaStringHash, leaderIndex, leaderOf } from '../../src/cluster/placement';
import { SingleNode } from '../../src/cluster/single-node';
import { ErrorCode } from '../../src/protocol/error-codes';

const node = (nodeId: number): BrokerNode => ({
  nodeId,
  rack: null,
  endpoints: [{ name: 'PLAINTEXT', host: `b${nodeId}`, port: 9092 }],
});

describe('placement', () => {
  it("hashes as Java's String.hashCode, so placement matches Kafka's formula", () => {
    expect(javaStringHash('')).toBe(0);
    expect(javaStringHash('hello')).toBe(99162322);
    expect(javaStringHash('my-group-with-a-long-name')).toBe(1977297176); // java: "my-group-with-a-long-name".hashCode();
  });

  it('never places on a negative index, even for hash -2^31', () => {
    // "polygenelubricants".hashCode() is Integer.MIN_VALUE.
    expect(javaStringHash('polygenelubricants')).toBe(-(2 ** 31));
    expect(coordinatorIndex('polygenelubricants', 3)).toBe(0);
    for (let p = 0; p < 10; p++) expect(leaderIndex('polygenelubricants', p, 3)).toBeGreaterThanOrEqual(0);
  });

  it("spreads one topic's partitions round the brokers", () => {
    const brokers = [node(1), node(2), node(3)];
    const leaders = [0, 1, 2, 3, 4, 5].map((p) => leaderOf(brokers, 'orders', p).nodeId);
    expect(new Set(leaders.slice(0, 3)).size).toBe(3);
    expect(leaders.slice(3)).toEqual(leaders.slice(0, 3));
  });

  it('gives the same answer for the same live set', () => {
    const a = [node(1), node(2), node(3)];
    const b = [node(1), node(2), node(3)];
    for (const g of ['g1', 'orders-consumer', 'x']) expect(coordinatorOf(a, g).nodeId).toBe(coordinatorOf(b, g).nodeId);
  });

  it("names a broker's endpoint on the request's listener, else its first", () => {
    const n: BrokerNode = {
      nodeId: 1,
      rack: null,
      endpoints: [
        { name: 'PLAINTEXT', host: 'a', port: 1 },
        { name: 'SSL', host: 'b', port: 2 },
      ],
    };
    expect(endpointOf(n, 'SSL')).toEqual({ host: 'b', port: 2 });
    expect(endpointOf(n, 'OTHER')).toEqual({ host: 'a', port: 1 });
    expect(endpointOf({ ...n, endpoints: [] }, 'SSL')).toEqual({ host: '', port: -1 });
  });
});

describe('SingleNode', () => {
  it('leads and coordinates everything', async () => {
    const c = new SingleNode(7, [{ name: 'PLAINTEXT', host: 'h', port: 9 }]);
    expect(c.view()).toEqual({
      epoch: 0,
      brokers: [node(7)].map((n) => ({ ...n, endpoints: [{ name: 'PLAINTEXT', host: 'h', port: 9 }] })),
    });
    expect(c.leaderOf()).toBe(7);
    expect(c.coordinatorOf().nodeId).toBe(7);
    await expect(c.checkCoordinator()).resolves.toBe(ErrorCode.NONE);
    expect(c.shared).toBe(false);
  });
});
