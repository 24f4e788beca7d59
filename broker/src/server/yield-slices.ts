// Long handlers (a CreateTopics with thousands of topics) run in slices: after SLICE_MS of work
// they yield to the event loop with setImmediate, so other connections' requests (and their
// I/O) are served between slices instead of waiting for the whole request (issue 11).
export const SLICE_MS = 10;

export class SliceClock {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Yields to the event loop once the current slice has run `sliceMs`; otherwise returns at once. */
  async maybeYield(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
  }
}
