// A connection over its client's quotas (server/quotas): the answer carries the throttle time, and
// the connection neither reads nor starts requests for that long (KIP-219 muting).
import type { RequestContext } from './context';
import { recordRequest, throttledBody } from './quotas/request-quotas';
import { encodeResponse } from './response-queue';

/** A request's answer as sent under the quotas. */
export interface QuotaAnswer {
  /** The encoded response, or null when none is due. */
  chunks: Buffer[] | null;
  /** The body sent (the throttled one, if throttled). */
  sent: unknown;
  /** How long to mute the connection (0: not throttled). */
  throttleMs: number;
}

/**
 * Encodes the response and records the request against its client's quotas (request bytes,
 * response bytes, handler and encoding time); over a quota, the response carries the throttle
 * time (a fetch then carries no data) and goes out at once, and the connection is to be muted for
 * that time (KIP-219).
 */
export function answerUnderQuotas(
  ctx: RequestContext,
  requestBytes: number,
  handlerMs: number,
  body: unknown,
): QuotaAnswer {
  const t0 = performance.now();
  let chunks = body === null ? null : encodeResponse(ctx, body);
  const responseBytes = chunks ? chunks.reduce((n, c) => n + c.length, 0) : 0;
  const t = recordRequest(
    ctx.broker.quotas,
    {
      apiKey: ctx.apiKey,
      user: ctx.session.principal.name,
      clientId: ctx.clientId ?? '',
      requestBytes,
      responseBytes,
      handlerMs: handlerMs + (performance.now() - t0),
      noResponse: body === null,
    },
    Date.now(),
  );
  let sent = body;
  if (t.throttleMs > 0 && body !== null) {
    sent = throttledBody(body, t);
    chunks = encodeResponse(ctx, sent);
  }
  return { chunks, sent, throttleMs: t.throttleMs };
}

/** The mute timer: while it runs, the connection reads and starts nothing. */
export class ConnectionMute {
  private timer: NodeJS.Timeout | undefined;
  private mutedUntil = 0;

  /** `unmuted`: called when the time is up (the connection starts and reads again). */
  constructor(private readonly unmuted: () => void) {}

  get muted(): boolean {
    return this.timer !== undefined;
  }

  /** Mutes for `ms` (or longer, if already muted for longer); false when that changed nothing. */
  mute(ms: number): boolean {
    const until = performance.now() + ms;
    if (this.timer !== undefined && until <= this.mutedUntil) return false;
    this.mutedUntil = until;
    clearTimeout(this.timer);
    this.arm(ms);
    return true;
  }

  // A timer is due by libuv's cached loop time, which can be behind the real clock by the time
  // the current loop turn has run: it may fire early. The throttle is a promise to the client
  // (KIP-219), so the rest is waited out.
  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      const left = this.mutedUntil - performance.now();
      if (left > 0) return this.arm(Math.ceil(left));
      this.timer = undefined;
      this.unmuted();
    }, ms);
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
