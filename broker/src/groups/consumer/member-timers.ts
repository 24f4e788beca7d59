// Named deadlines per (group, member): the join and sync timeouts of classic-protocol members in a
// consumer group (Kafka's consumerGroupJoinKey / consumerGroupSyncKey timers). Cleared with the member.
import type { TimerHandle, TimerLike } from '../timers';

export type MemberDeadline = 'join' | 'sync';

export class MemberTimers {
  private readonly handles = new Map<string, TimerHandle>();

  constructor(private readonly timers: TimerLike) {}

  /** Runs `fire` after `ms` unless cancelled; replaces a pending one of the same kind (unless `ifAbsent`). */
  schedule(
    groupId: string,
    memberId: string,
    kind: MemberDeadline,
    ms: number,
    fire: () => void,
    ifAbsent = false,
  ): void {
    const key = keyOf(groupId, memberId, kind);
    const old = this.handles.get(key);
    if (old !== undefined) {
      if (ifAbsent) return;
      this.timers.clearTimeout(old);
    }
    this.handles.set(
      key,
      this.timers.setTimeout(() => {
        this.handles.delete(key);
        fire();
      }, ms),
    );
  }

  cancel(groupId: string, memberId: string, kind: MemberDeadline): void {
    const key = keyOf(groupId, memberId, kind);
    const t = this.handles.get(key);
    if (t !== undefined) this.timers.clearTimeout(t);
    this.handles.delete(key);
  }

  clearMember(groupId: string, memberId: string): void {
    this.cancel(groupId, memberId, 'join');
    this.cancel(groupId, memberId, 'sync');
  }
}

const keyOf = (groupId: string, memberId: string, kind: MemberDeadline) => `${groupId}\u0000${memberId}\u0000${kind}`;
