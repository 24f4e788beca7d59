// The share groups' simple assignor (KIP-932; Kafka 4.1's SimpleAssignor): partitions are dealt
// out while there are enough of them, shared once members outnumber them.
import { simpleAssignor, type AssignorMember } from '../../../src/groups/share/share-assignor';
import type { TopicView } from '../../../src/groups/share/share-group';

const topics = new Map<string, TopicView>([
  ['jobs', { topicId: 'J', name: 'jobs', partitionCount: 4 }],
  ['one', { topicId: 'O', name: 'one', partitionCount: 1 }],
]);
const member = (memberId: string, ...subscribedTopicNames: string[]): AssignorMember => ({
  memberId,
  subscribedTopicNames,
});
/** member id -> "topicId:partition" list, for short expectations. */
const flat = (members: AssignorMember[]) =>
  Object.fromEntries(
    [...simpleAssignor(members, topics)].map(([id, a]) => [
      id,
      [...a].flatMap(([t, ps]) => ps.map((p) => `${t}:${p}`)),
    ]),
  );

describe('simpleAssignor', () => {
  it('gives a lone member every partition of its topics', () => {
    expect(flat([member('a', 'jobs', 'one')])).toEqual({ a: ['J:0', 'J:1', 'J:2', 'J:3', 'O:0'] });
  });

  it('splits a topic between members while partitions are enough (each partition to one member)', () => {
    expect(flat([member('b', 'jobs'), member('a', 'jobs')])).toEqual({ a: ['J:0', 'J:2'], b: ['J:1', 'J:3'] });
    expect(flat([member('a', 'jobs'), member('b', 'jobs'), member('c', 'jobs')])).toEqual({
      a: ['J:0', 'J:3'],
      b: ['J:1'],
      c: ['J:2'],
    });
  });

  it('shares partitions once members outnumber them, every member reading one', () => {
    expect(flat([member('a', 'one'), member('b', 'one'), member('c', 'one')])).toEqual({
      a: ['O:0'],
      b: ['O:0'],
      c: ['O:0'],
    });
    const six = flat(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => member(id, 'jobs')));
    expect(Object.values(six).map((ps) => ps.length)).toEqual([1, 1, 1, 1, 1, 1]);
    const holders = Object.values(six)
      .flat()
      .reduce<Record<string, number>>((n, p) => ({ ...n, [p]: (n[p] ?? 0) + 1 }), {});
    expect(holders).toEqual({ 'J:0': 2, 'J:1': 2, 'J:2': 1, 'J:3': 1 });
  });

  it('spreads several topics over members subscribed to different ones', () => {
    expect(flat([member('a', 'jobs', 'one'), member('b', 'one'), member('c', 'missing')])).toEqual({
      a: ['J:0', 'J:1', 'J:2', 'J:3'],
      b: ['O:0'],
      c: [],
    });
  });
});
