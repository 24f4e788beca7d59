// Keeps one connection's Produce requests in arrival order on their way into the append queue.
// request-scheduler.ts starts consecutive Produce requests together (pipelined produces stay
// fast), and each awaits storage (topic, broker configs) before it appends: with a network engine
// (postgres://) those awaits end in any order, and a later request could reach the append queue
// first. Kafka handles a connection's requests one at a time, so an idempotent producer's pipelined
// batches (max.in.flight <= 5) must be stored in send order (else OUT_OF_ORDER_SEQUENCE_NUMBER,
// fatal in librdkafka), and a plain producer's records too (else silently reordered).
export interface ProduceTurn {
  /**
   * Settles once every earlier request of the connection has entered the append queue or ended;
   * undefined when none was still on its way at take() (nothing to wait for: no promise, no await).
   */
  readonly ready: Promise<void> | undefined;
  /** Lets the next request in; call once this one has entered the append queue, or will not. */
  release(): void;
}

/**
 * One request's place. Its promise is made only when a later request has to wait for it: a
 * connection whose produces do not overlap (one in flight, or each done before the next is read)
 * makes none (issue 33: a promise, a closure and an await per seed request).
 */
class Turn implements ProduceTurn {
  readonly ready: Promise<void> | undefined;
  private released = false;
  private wake: (() => void) | undefined;
  private whenReleased: Promise<void> | undefined;

  constructor(
    private readonly order: ProduceOrder,
    before: Turn | undefined,
  ) {
    this.ready = before?.released === false ? before.untilReleased() : undefined;
  }

  /** The promise the next request waits on (made once). */
  private untilReleased(): Promise<void> {
    return (this.whenReleased ??= new Promise<void>((resolve) => (this.wake = resolve)));
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.wake?.();
    this.order.left(this);
  }
}

export class ProduceOrder {
  /** The last turn handed out, while it is not released. */
  private last: Turn | undefined;

  /** The next place in line: take it before the handler's first await. */
  take(): ProduceTurn {
    const turn = new Turn(this, this.last);
    this.last = turn;
    return turn;
  }

  /** `turn` was released: when it is the last one, the next take() need not wait. */
  left(turn: ProduceTurn): void {
    if (this.last === turn) this.last = undefined;
  }
}
