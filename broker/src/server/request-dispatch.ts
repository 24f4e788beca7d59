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
  const { handler, spec, ctx, request, reserved, started } = decoded;
  const { apiKey, broker } = ctx;
  const slot = conn.responses.open(ctx.responseHold);
  const metrics = broker.metrics;
  metrics?.requested(apiKey);
  // Client quotas (server/quotas): looked at only when one is set, so without quotas a request
  // costs one property read more.
  const quotasOn = broker.quotas.clientQuotasOn;
  let handlerMs = 0;
  const finish = (body: unknown): void | Promise<void> => {
    let sent = body;
    if (quotasOn) sent = finishWithQuotas(conn, slot, ctx, reserved, handlerMs, body);
    else if (body !== null && !conn.closed()) {
      // A large answer is encoded in slices; its slot stays unfinished meanwhile.
      const slicing = conn.responses.answer(slot, ctx, body);
      if (slicing) return slicing.then(() => answered(body));
    }
    answered(sent);
  };
  const answered = (sent: unknown) => {
    if (ctx.mutationThrottleMs && !conn.closed()) conn.mute(ctx.mutationThrottleMs);
    if (metrics && !conn.closed()) metrics.answered(apiKey, sent);
    if (!slot.chunks) slot.hold?.releaseAll(); // nothing will be written (no response, or closed)
    slot.done = true;
    conn.answered();
    if (broker.logger.enabled('debug')) {
      broker.logger.debug('request', {
        connectionId: conn.id,
        api: spec.name,
        apiVersion: ctx.apiVersion,
        correlationId: ctx.correlationId,
        clientId: ctx.clientId,
        ms: Math.round((performance.now() - started) * 1000) / 1000,
      });
    }
    conn.responses.scheduleFlush();
  };
  const fail = (err: unknown) => answerHandlerFailure(conn, slot, ctx, spec.name, request, err, finish);
  conn.scheduler.schedule(apiKey === ApiKey.Produce, () => {
    const done = () => {
      // A handler that went on after its connection closed may have taken memory since.
      if (conn.closed()) slot.hold?.releaseAll();
      conn.releaseRequest(reserved);
      conn.scheduler.handlerDone();
    };
    try {
      const t0 = quotasOn ? performance.now() : 0;
      const result = handler.handle(ctx, request);
      if (quotasOn) handlerMs = performance.now() - t0;
      if (result instanceof Promise) {
        // finish can throw too (an answer that does not encode): answered as a failed handler;
        // fail never throws (an unhandled rejection would end the process).
        result.then(finish, fail).catch(fail).finally(done);
      } else {
        const finished = finish(result);
        if (finished) finished.catch(fail).finally(done);
        else done();
      }
    } catch (err) {
      fail(err);
      done();
    }
  });
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
