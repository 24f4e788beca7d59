// A fake clock and scheduler for the coordinator: time moves only through advance(), and timers
// fire in due order (then creation order) as it passes them.
import type { TimerHandle, TimerLike } from '../../src/groups/timers';

interface Task {
  id: number;
  dueMs: number;
  fn: () => void;
}

export class FakeTimers implements TimerLike {
  nowMs = 0;
  private nextId = 1;
  private readonly tasks = new Map<number, Task>();

  readonly now = (): number => this.nowMs;

  setTimeout(fn: () => void, delayMs: number): TimerHandle {
    const id = this.nextId++;
    this.tasks.set(id, { id, dueMs: this.nowMs + Math.max(0, delayMs), fn });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.tasks.delete(handle as number);
  }

  /** Moves the clock forward by `ms`, running every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.nowMs + ms;
    for (let guard = 0; guard < 100_000; guard++) {
      let next: Task | undefined;
      for (const t of this.tasks.values())
        if (t.dueMs <= target && (!next || t.dueMs < next.dueMs || (t.dueMs === next.dueMs && t.id < next.id)))
          next = t;
      if (!next) break;
      this.tasks.delete(next.id);
      this.nowMs = next.dueMs;
      next.fn();
    }
    this.nowMs = target;
  }

  /**
   * advance() for timers whose work awaits storage (the transaction cleanup pass): after each timer
   * the promises it started settle before the next one is looked for.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.nowMs + ms;
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
    await settle();
    for (let guard = 0; guard < 100_000; guard++) {
      let next: Task | undefined;
      for (const t of this.tasks.values())
        if (t.dueMs <= target && (!next || t.dueMs < next.dueMs || (t.dueMs === next.dueMs && t.id < next.id)))
          next = t;
      if (!next) break;
      this.tasks.delete(next.id);
      this.nowMs = next.dueMs;
      next.fn();
      await settle();
    }
    this.nowMs = target;
  }

  get pending(): number {
    return this.tasks.size;
  }
}
