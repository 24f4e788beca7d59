// When a connection's decoded requests may start their handlers: one at a time, in order, except
// consecutive Produce requests, which start together.

/** A decoded request waiting to start: a Produce or not, and how it starts. */
export interface ScheduledRequest {
  readonly produce: boolean;
  start(): void;
}

export class RequestScheduler {
  /** Handlers started and not finished; all Produce when runningProduceOnly. */
  private running = 0;
  private runningProduceOnly = false;
  /** Decoded requests waiting for the ones before them to finish. */
  private readonly waiting: ScheduledRequest[] = [];

  /**
   * `mayStart`: false while the connection holds requests back (its client has not taken the
   * responses already made, or it is muted over a quota); `closed`: true once it has closed.
   */
  constructor(
    private readonly mayStart: () => boolean,
    private readonly closed: () => boolean,
  ) {}

  /**
   * Kafka processes the requests of one connection in order (a produce is visible to the next
   * request on that connection), so a handler starts only when the previous one has finished.
   * The exception keeps pipelined produces fast: consecutive Produce requests start together,
   * since the append queue applies them in arrival order (and in one transaction).
   */
  schedule(request: ScheduledRequest): void {
    const { produce } = request;
    const canStart =
      this.mayStart() && (this.running === 0 || (produce && this.runningProduceOnly && this.waiting.length === 0));
    if (!canStart) {
      this.waiting.push(request);
      return;
    }
    this.runningProduceOnly = this.running === 0 ? produce : this.runningProduceOnly && produce;
    this.running++;
    request.start();
  }

  /** A started handler finished (answered or failed). */
  handlerDone(): void {
    this.running--;
    this.startWaiting();
  }

  /**
   * Starts the next request, and with it any produces queued right behind a produce; none while
   * the client has not taken the responses already made (they would only pile up in memory).
   */
  startWaiting(): void {
    if (this.running > 0 || this.closed()) return;
    while (this.waiting.length > 0 && this.mayStart()) {
      const next = this.waiting[0]!;
      if (this.running > 0 && !(next.produce && this.runningProduceOnly)) break;
      this.waiting.shift();
      this.runningProduceOnly = this.running === 0 ? next.produce : this.runningProduceOnly && next.produce;
      this.running++;
      next.start();
    }
  }

  /** The connection closed: what waits never starts. */
  clear(): void {
    this.waiting.length = 0;
  }
}
