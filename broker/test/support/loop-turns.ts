// Counts the turns of the event loop (setImmediate callbacks) while some work runs: the tests of
// issue 29's event-loop budget use it to show that a long job yields between its steps.

/** Runs `work`, counting the turns of the event loop until it settles. */
export async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), turns };
  } finally {
    done = true;
  }
}
