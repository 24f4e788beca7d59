// The coordinator's periodic pass (Kafka's "transaction-abort" task, every
// transaction.abort.timed.out.transaction.cleanup.interval.ms): timed-out transactions aborted,
// expired transactional ids removed. The state is read from storage at each pass, so after a
// restart the pass finds what was open before it; nothing else needs restoring.
import type { TimerHandle, TimerLike } from '../groups/timers';

export class CleanupTimer {
  private handle: TimerHandle | undefined;
  private running = false;

  constructor(
    private readonly timers: TimerLike,
    private readonly intervalMs: number,
    private readonly pass: () => void | Promise<void>,
  ) {}

  /** Schedules the passes (realTimers' timers are unref'd: they never keep the process alive). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }

  private schedule(): void {
    this.handle = this.timers.setTimeout(() => {
      this.handle = undefined;
      if (!this.running) return;
      // The next pass is scheduled when this one has ended (a pass awaits storage).
      void Promise.resolve()
        .then(this.pass)
        .finally(() => {
          if (this.running && this.handle === undefined) this.schedule();
        });
    }, this.intervalMs);
  }
}
