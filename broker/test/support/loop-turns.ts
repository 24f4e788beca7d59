// Counts the turns of the event loop (setImmediate callbacks) while some work runs: the tests of
// issue 29's event-loop budget use it to show that a long job yields between its steps.

/** A running count of event-loop turns from now until stop(). */
export function turnCounter(): { readonly turns: number; stop(): void } {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get turns() {
      return turns;
    },
    stop: () => {
      done = true;
    },
  };
}

/** Runs `work`, counting the turns of the event loop until it settles. */
export async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  const counter = turnCounter();
  try {
    return { result: await work(), turns: counter.turns };
  } finally {
    counter.stop();
  }
}
