// Long work runs in slices that yield to the event loop with setImmediate, so other connections'
// requests (and their I/O) are served between slices instead of waiting for the whole request
// (issues 11, 29): SliceClock yields after SLICE_MS of work (encoding a large answer); slicesOf cuts
// a request's items into slices bounded by count and size, each its own step (CreateTopics and
// DeleteTopics: a slice's topics are one storage transaction, and the loop turns between slices),
// sized by SliceSizer to take about TARGET_SLICE_MS each.
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

/** Resolves in a later turn of the event loop: I/O and other connections' requests run first. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * `items` cut in order into slices of at most `maxItems` whose `weight`s add up to at most
 * `maxWeight` (an item heavier than that is a slice of its own): work bounded by count and size.
 */
export function* slicesOf<T>(
  items: readonly T[],
  maxItems: number | (() => number),
  weight: (item: T) => number = () => 0,
  maxWeight = Infinity,
): Generator<T[]> {
  const most = typeof maxItems === 'number' ? () => maxItems : maxItems;
  let slice: T[] = [];
  let sliceWeight = 0;
  for (const item of items) {
    const w = weight(item);
    if (slice.length > 0 && (slice.length >= most() || sliceWeight + w > maxWeight)) {
      yield slice;
      slice = [];
      sliceWeight = 0;
    }
    slice.push(item);
    sliceWeight += w;
  }
  if (slice.length > 0) yield slice;
}

/** Topics per slice of CreateTopics / DeleteTopics at most: one storage transaction and one loop turn each. */
export const TOPICS_PER_SLICE = 64;
/** The first slice of a request, before any cost is known: it shares its turn with the decode. */
export const FIRST_SLICE_TOPICS = 16;
/** What a slice of topics should take; the next slice is sized from the last one's cost (SliceSizer). */
export const TARGET_SLICE_MS = 5;

/**
 * Slice sizes that follow the measured cost of the work: each slice is sized to take about
 * `targetMs` at the last slice's cost per item, within 1..`max`. A loaded machine (or topics
 * dearer than usual) gets smaller slices, an idle one slices of `max`.
 */
export class SliceSizer {
  constructor(
    private size: number,
    private readonly max: number,
    private readonly targetMs = TARGET_SLICE_MS,
  ) {}

  /** The size of the next slice. */
  get next(): number {
    return this.size;
  }

  /** A slice of `count` items took `ms`. */
  measured(count: number, ms: number): void {
    const perItemMs = Math.max(ms, 0.01) / Math.max(count, 1);
    this.size = Math.max(1, Math.min(this.max, Math.floor(this.targetMs / perItemMs)));
  }
}

/** Runs `step`, telling `sizer` how long it took for its `count` items. */
export async function sized<T>(sizer: SliceSizer, count: number, step: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await step();
  } finally {
    sizer.measured(count, performance.now() - started);
  }
}
/** Partitions per slice of CreateTopics: a slice of big topics is cut shorter (their rows are the cost). */
export const PARTITIONS_PER_SLICE = 1000;
