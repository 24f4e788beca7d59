// Random sequences of member actions and clock moves (fast-check): the state machine never makes an
// illegal transition (that would throw), its invariants hold after every step, and close() leaves
// no held response unanswered and no timer behind.
import fc from 'fast-check';
import { Group } from '../../src/groups/group';
import { GroupState } from '../../src/groups/group-state';
import { assignmentOf, flush, GROUP, harness, heartbeat, join, subscription, sync, Tracked } from './harness';

type Action =
  | { kind: 'joinNew'; client: number; v4: boolean; static: boolean; proto: number }
  | { kind: 'rejoin'; client: number; proto: number }
  | { kind: 'sync'; client: number }
  | { kind: 'heartbeat'; client: number }
  | { kind: 'leave'; client: number }
  | { kind: 'advance'; ms: number };

const CLIENTS = 4;
const PROTOCOLS = [
  [{ name: 'range', metadata: subscription(['t']) }],
  [
    { name: 'range', metadata: subscription(['t', 'u']) },
    { name: 'roundrobin', metadata: subscription(['t']) },
  ],
];

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('joinNew' as const),
    client: fc.nat(CLIENTS - 1),
    v4: fc.boolean(),
    static: fc.boolean(),
    proto: fc.nat(1),
  }),
  fc.record({ kind: fc.constant('rejoin' as const), client: fc.nat(CLIENTS - 1), proto: fc.nat(1) }),
  fc.record({ kind: fc.constant('sync' as const), client: fc.nat(CLIENTS - 1) }),
  fc.record({ kind: fc.constant('heartbeat' as const), client: fc.nat(CLIENTS - 1) }),
  fc.record({ kind: fc.constant('leave' as const), client: fc.nat(CLIENTS - 1) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(100, 3000, 6000, 12_000, 31_000) }),
);

function checkInvariants(g: Group | undefined): void {
  if (!g) return;
  const members = [...g.members.values()];
  switch (g.state) {
    case GroupState.Empty:
      expect(members).toHaveLength(0);
      break;
    case GroupState.CompletingRebalance:
    case GroupState.Stable:
      expect(members.length).toBeGreaterThan(0);
      expect(g.protocolName).not.toBeNull();
      for (const m of members) expect(m.isAwaitingJoin).toBe(false);
      break;
    default:
      break;
  }
  if (g.state !== GroupState.CompletingRebalance) for (const m of members) expect(m.isAwaitingSync).toBe(false);
  if (members.length > 0) expect(g.has(g.leaderId ?? '')).toBe(true);
  for (const id of g.pendingSync) expect(g.has(id)).toBe(true);
  for (const [instance, id] of g.staticMembers) expect(g.get(id)?.groupInstanceId).toBe(instance);
}

describe('group state machine invariants', () => {
  it('hold under random member behaviour, and close() settles everything', async () => {
    const statesSeen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 40 }), async (actions) => {
        const { coord, timers } = harness();
        const held: Tracked<unknown>[] = [];
        // What each simulated client believes: its member id and generation.
        const known: { memberId: string; generationId: number; instance: string | null }[] = Array.from(
          { length: CLIENTS },
          () => ({ memberId: '', generationId: -1, instance: null }),
        );
        for (const a of actions) {
          if (a.kind === 'advance') {
            timers.advance(a.ms);
          } else {
            const k = known[a.client]!;
            if (a.kind === 'joinNew' || a.kind === 'rejoin') {
              const instance = a.kind === 'joinNew' ? (a.static ? `i${a.client}` : null) : k.instance;
              const memberId = a.kind === 'joinNew' ? '' : k.memberId;
              const j = join(coord, {
                clientId: `c${a.client}`,
                memberId,
                groupInstanceId: instance,
                requireKnownMemberId: a.kind === 'joinNew' ? a.v4 : true,
                protocols: PROTOCOLS[a.proto]!,
              });
              held.push(j);
              k.instance = instance;
              j.promise.then((r) => {
                if (r.errorCode === 0 || r.errorCode === 79) {
                  k.memberId = r.memberId;
                  k.generationId = r.generationId;
                }
              });
            } else if (a.kind === 'sync') {
              held.push(
                sync(
                  coord,
                  k.memberId,
                  k.generationId,
                  [{ memberId: k.memberId, assignment: assignmentOf('t', [a.client]) }],
                  { groupInstanceId: k.instance },
                ),
              );
            } else if (a.kind === 'heartbeat') {
              heartbeat(coord, k.memberId, k.generationId, k.instance);
            } else {
              coord.leaveGroup(GROUP, [{ memberId: k.memberId, groupInstanceId: k.instance }]);
            }
          }
          await flush();
          checkInvariants(coord.group(GROUP));
          statesSeen.add(coord.group(GROUP)?.state ?? 'none');
        }
        coord.close();
        await flush();
        expect(held.filter((h) => !h.settled)).toEqual([]);
        expect(timers.pending).toBe(0);
      }),
      { numRuns: 300 },
    );
    // The runs did exercise the whole machine.
    expect([...statesSeen].sort()).toEqual(['CompletingRebalance', 'Empty', 'PreparingRebalance', 'Stable', 'none']);
  }, 60_000);
});
