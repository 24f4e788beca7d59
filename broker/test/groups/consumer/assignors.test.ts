// The server-side assignors (uniform, range): balance, stickiness, subscriptions that differ.
import type { Assignment } from '../../../src/groups/consumer/assignment';
import { partitionCount } from '../../../src/groups/consumer/assignment';
import type { AssignorMember, AssignorTopic } from '../../../src/groups/consumer/assignor';
import { assignorsNamed } from '../../../src/groups/consumer/assignor-registry';
import { rangeAssignor } from '../../../src/groups/consumer/range-assignor';
import { uniformAssignor } from '../../../src/groups/consumer/uniform-assignor';

const topics = (...ts: [string, number][]): Map<string, AssignorTopic> =>
  new Map(ts.map(([name, n]) => [`id-${name}`, { topicId: `id-${name}`, name, partitionCount: n }]));

const member = (memberId: string, subscribed: string[], current: Assignment = new Map()): AssignorMember => ({
  memberId,
  instanceId: null,
  subscribedTopicIds: new Set(subscribed.map((t) => `id-${t}`)),
  currentAssignment: current,
});

const flat = (a: Assignment | undefined): string[] =>
  [...(a ?? new Map()).entries()].flatMap(([t, ps]) => [...ps].map((p) => `${t.slice(3)}-${p}`)).sort();

function everyPartitionOnce(result: Map<string, Assignment>, ts: Map<string, AssignorTopic>): void {
  const all = [...result.values()].flatMap(flat);
  expect(new Set(all).size).toBe(all.length);
  expect(all.length).toBe([...ts.values()].reduce((n, t) => n + t.partitionCount, 0));
}

describe('uniform assignor', () => {
  it('balances one topic across members (counts differ by at most one)', () => {
    const ts = topics(['a', 7]);
    const r = uniformAssignor.assign([member('m1', ['a']), member('m2', ['a']), member('m3', ['a'])], ts);
    everyPartitionOnce(r, ts);
    expect([...r.values()].map(partitionCount).sort()).toEqual([2, 2, 3]);
  });

  it('keeps what members had: a new member takes only its share, from the others', () => {
    const ts = topics(['a', 6]);
    const first = uniformAssignor.assign([member('m1', ['a']), member('m2', ['a'])], ts);
    const second = uniformAssignor.assign(
      [member('m1', ['a'], first.get('m1')), member('m2', ['a'], first.get('m2')), member('m3', ['a'])],
      ts,
    );
    everyPartitionOnce(second, ts);
    for (const m of ['m1', 'm2']) {
      expect(partitionCount(second.get(m)!)).toBe(2);
      // Each old member only lost partitions, gained none.
      expect(flat(second.get(m)).every((p) => flat(first.get(m)).includes(p))).toBe(true);
    }
    expect(partitionCount(second.get('m3')!)).toBe(2);
  });

  it('moves nothing when a member with one more keeps its one more', () => {
    const ts = topics(['a', 3]);
    const had = new Map([['id-a', new Set([0, 1])]]);
    const r = uniformAssignor.assign([member('m1', ['a']), member('m2', ['a'], had)], ts);
    expect(flat(r.get('m2'))).toEqual(['a-0', 'a-1']);
    expect(flat(r.get('m1'))).toEqual(['a-2']);
  });

  it('gives each topic only to its subscribers and balances what can be balanced', () => {
    const ts = topics(['a', 4], ['b', 2]);
    const r = uniformAssignor.assign([member('m1', ['a']), member('m2', ['a', 'b']), member('m3', ['b'])], ts);
    everyPartitionOnce(r, ts);
    expect(flat(r.get('m1')).every((p) => p.startsWith('a-'))).toBe(true);
    expect(flat(r.get('m3')).every((p) => p.startsWith('b-'))).toBe(true);
    expect([...r.values()].map(partitionCount).sort()).toEqual([2, 2, 2]);
  });

  it('gives a member subscribed to nothing that exists an empty assignment', () => {
    const r = uniformAssignor.assign([member('m1', ['a']), member('m2', ['missing'])], topics(['a', 2]));
    expect(flat(r.get('m2'))).toEqual([]);
    expect(flat(r.get('m1'))).toEqual(['a-0', 'a-1']);
  });
});

describe('range assignor', () => {
  it('deals contiguous ranges per topic, the first members one more, co-partitioned', () => {
    const ts = topics(['a', 5], ['b', 5]);
    const r = rangeAssignor.assign([member('m2', ['a', 'b']), member('m1', ['a', 'b'])], ts);
    expect(flat(r.get('m1'))).toEqual(['a-0', 'a-1', 'a-2', 'b-0', 'b-1', 'b-2']);
    expect(flat(r.get('m2'))).toEqual(['a-3', 'a-4', 'b-3', 'b-4']);
  });
});

describe('group.consumer.assignors', () => {
  it("takes names and Kafka's class names, and refuses others naming the choices", () => {
    expect(
      assignorsNamed(['range', 'org.apache.kafka.coordinator.group.assignor.UniformAssignor']).map((a) => a.name),
    ).toEqual(['range', 'uniform']);
    expect(() => assignorsNamed(['sticky'])).toThrow(/"sticky".*uniform or range/);
  });
});
