import type { BrokerNode } from '../../src/cluster/cluster';
import { endpointOf } from '../../src/cluster/cluster';
import {
  coordinatorOf,
  javaStringHash,
  leaderOf,
  PLACEMENT_MOD_N,
  PLACEMENT_RENDEZVOUS,
  PLACEMENT_VERSION,
} from '../../src/cluster/placement';
import { SingleNode } from '../../src/cluster/single-node';
import { ErrorCode } from '../../src/protocol/error-codes';

const node = (nodeId: number): BrokerNode => ({
  nodeId,
  rack: null,
  endpoints: [{ name: 'PLAINTEXT', host: `b${nodeId}`, port: 9092 }],
});
const nodes = (ids: readonly number[]) => [...ids].sort((a, b) => a - b).map(node);

/** Every key placement knows of: 100 topics of 8 partitions, 500 group ids. */
const KEYS = [
  ...Array.from({ length: 100 }, (_, t) => Array.from({ length: 8 }, (_, p) => ({ topic: `topic-${t}`, p }))).flat(),
  ...Array.from({ length: 500 }, (_, g) => ({ topic: `group-${g}`, p: -1 })),
];
const ownerOf = (brokers: readonly BrokerNode[], k: { topic: string; p: number }) =>
  k.p < 0 ? coordinatorOf(brokers, k.topic).nodeId : leaderOf(brokers, k.topic, k.p).nodeId;
const owners = (ids: readonly number[]) => KEYS.map((k) => ownerOf(nodes(ids), k));

/** Live sets to check: small and generated node ids, and some drawn by a fixed LCG. */
const LIVE_SETS: number[][] = [
  [1, 2],
  [1, 2, 3],
  [1001, 1002, 1003],
  [1, 2, 3, 4, 5, 6, 7],
];
let seed = 42;
const rand = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
for (let i = 0; i < 6; i++) {
  const set = new Set<number>();
  while (set.size < 2 + (i % 5)) set.add(1 + rand(2000));
  LIVE_SETS.push([...set]);
}

/** Share of each broker in `owned`, by node id. */
function shares(owned: number[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const o of owned) m.set(o, (m.get(o) ?? 0) + 1);
  for (const [k, v] of m) m.set(k, v / owned.length);
  return m;
}

describe('placement: rendezvous hashing', () => {
  it('is a function of the live set alone: the same on every broker, whatever order it lists them in', () => {
    const a = [node(1), node(2), node(3)];
    const b = [node(3), node(1), node(2)];
    for (const k of KEYS) expect(ownerOf(a, k)).toBe(ownerOf(b, k));
  });

  it('keeps its formula: brokers of one version agree (a new one needs a new PLACEMENT_VERSION)', () => {
    expect(PLACEMENT_VERSION).toBe(PLACEMENT_RENDEZVOUS);
    const three = nodes([1, 2, 3]);
    expect([0, 1, 2, 3, 4, 5].map((p) => leaderOf(three, 'orders', p).nodeId)).toEqual([1, 2, 1, 2, 3, 2]);
    expect(['g1', 'orders-consumer', 'x'].map((g) => coordinatorOf(three, g).nodeId)).toEqual([1, 2, 3]);
  });

  it('moves only the keys of a broker that leaves, and spreads them over the others', () => {
    for (const live of LIVE_SETS) {
      const before = owners(live);
      for (const gone of live) {
        const after = owners(live.filter((id) => id !== gone));
        const movedTo = new Set<number>();
        let othersMoved = 0;
        before.forEach((o, i) => {
          if (o === gone) movedTo.add(after[i]!);
          else if (after[i] !== o) othersMoved++;
        });
        expect(othersMoved).toBe(0);
        expect(movedTo.has(gone)).toBe(false);
        // Not all onto one survivor (as live[(i+1) mod n] would).
        if (live.length > 2) expect(movedTo.size).toBeGreaterThan(1);
      }
    }
  });

  it('moves to a broker that joins only the keys it takes, and takes its share', () => {
    for (const live of LIVE_SETS) {
      const before = owners(live);
      const joining = Math.max(...live) + 1;
      const after = owners([...live, joining]);
      let taken = 0;
      let othersMoved = 0;
      before.forEach((o, i) => {
        if (after[i] === joining) taken++;
        else if (after[i] !== o) othersMoved++;
      });
      expect(othersMoved).toBe(0);
      expect(taken / KEYS.length).toBeGreaterThan(0.5 / (live.length + 1));
    }
  });

  it('spreads 1000 partitions and 1000 groups evenly over three brokers (each 25 % to 42 %)', () => {
    for (const ids of [
      [1, 2, 3],
      [1001, 1002, 1003],
    ]) {
      const three = nodes(ids);
      const many = Array.from({ length: 1000 }, (_, i) => leaderOf(three, `t${i % 100}`, Math.floor(i / 100)).nodeId);
      const big = Array.from({ length: 1000 }, (_, p) => leaderOf(three, 'big', p).nodeId);
      const groups = Array.from({ length: 1000 }, (_, g) => coordinatorOf(three, `consumer-${g}`).nodeId);
      for (const owned of [many, big, groups]) {
        const s = shares(owned);
        expect([...s.keys()].sort()).toEqual(ids);
        for (const share of s.values()) {
          expect(share).toBeGreaterThanOrEqual(0.25);
          expect(share).toBeLessThanOrEqual(0.42);
        }
      }
    }
  });

  it('puts partitions 2k and 2k+1 on different brokers, so a small topic never sits on one', () => {
    for (const live of LIVE_SETS) {
      const brokers = nodes(live);
      for (let t = 0; t < 200; t++) {
        const leaders = Array.from({ length: 6 }, (_, p) => leaderOf(brokers, `small-${t}`, p).nodeId);
        expect([0, 2, 4].filter((k) => leaders[k] === leaders[k + 1])).toEqual([]);
        // Six partitions over 2 or 3+ brokers: at most half on one.
        expect(Math.max(...shares(leaders).values())).toBeLessThanOrEqual(0.5);
      }
    }
  });
});

describe('placement formula 1 (live[hash mod n], while a broker from before rendezvous is live)', () => {
  it("hashes as Java's String.hashCode, as Kafka places groups", () => {
    expect(javaStringHash('')).toBe(0);
    expect(javaStringHash('hello')).toBe(99162322);
    expect(javaStringHash('my-group-with-a-long-name')).toBe(1977297176); // java: "my-group-with-a-long-name".hashCode();
  });

  it('never places on a negative index, even for hash -2^31', () => {
    // "polygenelubricants".hashCode() is Integer.MIN_VALUE.
    expect(javaStringHash('polygenelubricants')).toBe(-(2 ** 31));
    const three = nodes([1, 2, 3]);
    expect(coordinatorOf(three, 'polygenelubricants', PLACEMENT_MOD_N).nodeId).toBe(1);
    for (let p = 0; p < 10; p++) expect(leaderOf(three, 'polygenelubricants', p, PLACEMENT_MOD_N)).toBeDefined();
  });

  it("goes round the brokers with a topic's partitions", () => {
    const brokers = nodes([1, 2, 3]);
    const leaders = [0, 1, 2, 3, 4, 5].map((p) => leaderOf(brokers, 'orders', p, PLACEMENT_MOD_N).nodeId);
    expect(new Set(leaders.slice(0, 3)).size).toBe(3);
    expect(leaders.slice(3)).toEqual(leaders.slice(0, 3));
  });
});

describe('endpointOf', () => {
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
