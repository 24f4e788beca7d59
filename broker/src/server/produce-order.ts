// Keeps one connection's Produce requests in arrival order on their way into the append queue.
// request-scheduler.ts starts consecutive Produce requests together (pipelined produces stay
// fast), and each awaits storage (topic, broker configs) before it appends: with a network engine
// (postgres://) those awaits end in any order, and a later request could reach the append queue
// first. Kafka handles a connection's requests one at a time, so an idempotent producer's pipelined
// batches (max.in.flight <= 5) must be stored in send order (else OUT_OF_ORDER_SEQUENCE_NUMBER,
// fatal in librdkafka), and a plain producer's records too (else silently reordered).
export interface ProduceTurn {
  /** Settles once every earlier request of the connection has entered the append queue or ended. */
  readonly ready: Promise<void>;
  /** Lets the next request in; call once this one has entered the append queue, or will not. */
  release(): void;
}

export class ProduceOrder {
  private last: Promise<void> = Promise.resolve();

  /** The next place in line: take it before the handler's first await. */
  take(): ProduceTurn {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const turn = { ready: this.last, release };
    this.last = mine;
    return turn;
  }
}
