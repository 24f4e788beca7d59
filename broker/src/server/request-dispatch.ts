// One decoded request, from its handler to its answer in the connection's response queue: started
// in order (request-scheduler.ts), answered under the client quotas when any is set, a failure
// answered as Kafka does (handler-failure.ts), its request memory released when it is done.
import { ApiKey } from '../protocol/api-keys';
import type { ApiSpec } from '../protocol/messages/registry';
import { answerUnderQuotas } from './connection-throttle';
import type { ApiHandler, RequestContext } from './context';
import { answerHandlerFailure, FailingConnection } from './handler-failure';
import type { RequestScheduler } from './request-scheduler';
import type { ResponseQueue, ResponseSlot } from './response-queue';

/** What of its connection a request uses on its way to the answer. */
export interface DispatchingConnection extends FailingConnection {
  readonly responses: ResponseQueue;
  readonly scheduler: RequestScheduler;
  /** Stops reading and starting requests for `ms` (a quota's throttle time, KIP-219). */
  mute(ms: number): void;
  /** After each answer (a failed login closes the connection once its answer is written). */
  answered(): void;
  /** The request's bytes go back to the request memory pool. */
  releaseRequest(bytes: number): void;
}

/** A decoded request: what serves it and how large its frame was. */
export interface DecodedRequest {
  handler: ApiHandler;
  spec: ApiSpec;
  ctx: RequestContext;
  request: unknown;
  /** Bytes of its frame, held in the request memory pool until it is answered. */
  reserved: number;
  /** performance.now() when its frame was read (the debug log's time). */
  started: number;
}

/** Queues the request's answer and schedules its handler. */
export function dispatchRequest(conn: DispatchingConnection, decoded: DecodedRequest): void {
  const slot = conn.responses.open(decoded.ctx.responseHold);
  decoded.ctx.broker.metrics?.requested(decoded.ctx.apiKey);
  conn.scheduler.schedule(new DispatchedRequest(conn, decoded, slot));
}

/**
 * One request from its start to its answer: an object with methods rather than a closure per step
 * (issue 33: five closures and three promises per request were ~1 KB of garbage at the seed load).
 */
class DispatchedRequest {
  readonly produce: boolean;
  /** Client quotas (server/quotas): looked at only when one is set. */
  private readonly quotasOn: boolean;
  private handlerMs = 0;

  constructor(
    private readonly conn: DispatchingConnection,
    private readonly decoded: DecodedRequest,
    private readonly slot: ResponseSlot,
  ) {
    this.produce = decoded.ctx.apiKey === ApiKey.Produce;
    this.quotasOn = decoded.ctx.broker.quotas.clientQuotasOn;
  }

  /** Runs the handler (request-scheduler.ts decides when). */
  start(): void {
    const { handler, ctx, request } = this.decoded;
    let result: unknown;
    try {
      const t0 = this.quotasOn ? performance.now() : 0;
      result = handler.handle(ctx, request);
      if (this.quotasOn) this.handlerMs = performance.now() - t0;
    } catch (err) {
      this.failed(err);
      return;
    }
    // fail never throws (an unhandled rejection would end the process).
    if (result instanceof Promise)
      result.then(
        (body) => this.settle(body),
        (err) => this.failed(err),
      );
    else this.settle(result);
  }

  /** The handler's answer: encoded (in slices, for a large one), then the request is done. */
  private settle(body: unknown): void {
    let slicing: Promise<void> | void;
    try {
      slicing = this.finish(body);
    } catch (err) {
      // An answer that does not encode: answered as a failed handler.
      this.failed(err);
      return;
    }
    if (slicing)
      slicing.then(
        () => this.done(),
        (err) => this.failed(err),
      );
    else this.done();
  }

  private failed(err: unknown): void {
    const { ctx, spec, request } = this.decoded;
    answerHandlerFailure(this.conn, this.slot, ctx, spec.name, request, err, (body) => this.finish(body));
    this.done();
  }

  private finish(body: unknown): void | Promise<void> {
    const { conn, slot } = this;
    let sent = body;
    if (this.quotasOn)
      sent = finishWithQuotas(conn, slot, this.decoded.ctx, this.decoded.reserved, this.handlerMs, body);
    else if (body !== null && !conn.closed()) {
      // A large answer is encoded in slices; its slot stays unfinished meanwhile.
      const slicing = conn.responses.answer(slot, this.decoded.ctx, body);
      if (slicing) return slicing.then(() => this.answered(body));
    }
    this.answered(sent);
  }

  private answered(sent: unknown): void {
    const { conn, slot } = this;
    const { ctx, spec, started } = this.decoded;
    if (ctx.mutationThrottleMs && !conn.closed()) conn.mute(ctx.mutationThrottleMs);
    if (ctx.broker.metrics && !conn.closed()) ctx.broker.metrics.answered(ctx.apiKey, sent);
    if (!slot.chunks) slot.hold?.releaseAll(); // nothing will be written (no response, or closed)
    slot.done = true;
    conn.answered();
    if (ctx.broker.logger.enabled('debug')) {
      ctx.broker.logger.debug('request', {
        connectionId: conn.id,
        api: spec.name,
        apiVersion: ctx.apiVersion,
        correlationId: ctx.correlationId,
        clientId: ctx.clientId,
        ms: Math.round((performance.now() - started) * 1000) / 1000,
      });
    }
    conn.responses.scheduleFlush();
  }

  /** The handler has finished (answered or failed). */
  private done(): void {
    const { conn, slot } = this;
    // A handler that went on after its connection closed may have taken memory since.
    if (conn.closed()) slot.hold?.releaseAll();
    conn.releaseRequest(this.decoded.reserved);
    conn.scheduler.handlerDone();
  }
}

/** Under client quotas: the answer (throttled, if over a quota) and the mute it brings. */
function finishWithQuotas(
  conn: DispatchingConnection,
  slot: ResponseSlot,
  ctx: RequestContext,
  requestBytes: number,
  handlerMs: number,
  body: unknown,
): unknown {
  if (conn.closed()) return body;
  const answer = answerUnderQuotas(ctx, requestBytes, handlerMs, body);
  if (answer.throttleMs > 0) conn.mute(answer.throttleMs);
  if (answer.chunks) conn.responses.setResponse(slot, answer.chunks);
  return answer.sent;
}
