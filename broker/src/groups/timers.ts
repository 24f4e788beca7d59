// The coordinator's only sources of time: `now()` and this scheduler, both injected, so unit tests
// drive session and rebalance timeouts with a fake clock instead of sleeping.
export type TimerHandle = unknown;

export interface TimerLike {
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Node's timers, unref'd: a pending session timeout must not keep the process alive. */
export const realTimers: TimerLike = {
  setTimeout(callback, delayMs) {
    const t = setTimeout(callback, Math.max(0, delayMs));
    t.unref();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};
