// One client connection: frames in, handlers run (concurrently, e.g. long-poll fetches), responses
// out strictly in request order. Reading pauses while too many requests are in flight, while the
// responses not yet taken by the client exceed a bound, and while the broker-wide request memory
// pool cannot hold the next frame.
import { ProduceOrder } from './produce-order';
import * as fs from 'node:fs';
import type { Socket } from 'node:net';
import * as path from 'node:path';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode } from '../protocol/error-codes';
import { DecodeError } from '../protocol/errors';
import { requestHeaderVersion, responseHeaderVersion } from '../protocol/headers';
import { API_SPEC_BY_KEY } from '../protocol/messages/registry';
import { Reader } from '../protocol/reader';
import { Writer } from '../protocol/writer';
import type { ApiHandler, BrokerContext, RequestContext } from './context';
import { usesSasl } from './listeners';
import { KafkaPrincipal, ListenerInfo, newSession, PLAINTEXT_LISTENER, Session } from './session';
import { FrameReader, FrameTooLargeError } from '../protocol/frame-reader';
import { StorageError } from '../storage/storage';
import { errorAnswer } from './error-answers';
import { unservedAnswer } from './unserved-answers';
import { apiVersionsBody } from './handlers/api-versions';
import type { WarningLimiter } from '../logger';
import type { RequestMemoryPool } from './request-memory-pool';
import { ResponseHold } from './response-memory';
import { encodeInSlices, slicedField } from './sliced-encoding';
import { recordRequest, throttledBody } from './quotas/request-quotas';
import { SaslAuthenticator, SaslServices } from './sasl/sasl-authenticator';

/** Requests a connection may have in flight before we stop reading from it (backpressure). */
const MAX_IN_FLIGHT = 64;

/**
 * Response bytes a connection may have pending (in the socket's buffer, or encoded and waiting for
 * an earlier response) before it stops reading requests and starting handlers until the client
 * has read them ('drain'). Kafka mutes a channel while one response is being sent; this allows a
 * little more so small pipelined responses keep flowing, and the kernel's own socket buffer (up to
 * a few MiB, not in the broker's heap) comes on top. A client that never reads thus holds at most
 * this plus the one response being built (bounded by the fetch size limits), not every fetch it
 * pipelined.
 */
export const MAX_PENDING_RESPONSE_BYTES = 1024 * 1024;

interface Slot {
  done: boolean;
  /** Encoded response frame, or null when no response is due. */
  chunks: Buffer[] | null;
  /** Bytes of `chunks`. */
  bytes: number;
  /** A Fetch's share of the broker's response memory, released once the socket has taken it. */
  hold?: ResponseHold;
}

/** What all connections of a broker share. */
export interface ConnectionShared {
  /** Request bytes held across connections (QUEUED_MAX_REQUEST_BYTES). */
  pool: RequestMemoryPool;
  /** Repeated warnings (bad frames from many connections) are counted, not each logged. */
  warnings: WarningLimiter;
  /** What sasl+ listeners' connections authenticate against; undefined: no listener has SASL. */
  sasl?: SaslServices;
  /** Tests only (StartOptions.testOnlyPrincipalForClientId): a principal from the client id. */
  testOnlyPrincipalForClientId?: (clientId: string | null) => KafkaPrincipal | undefined;
}

/** Responses of at most this many bytes in all are copied into one buffer before writing (see write()). */
const JOIN_RESPONSES_UP_TO_BYTES = 16 * 1024;

/** After a failed authentication the response goes out, then the connection closes; this long at most. */
const CLOSE_AFTER_FAILURE_MS = 5000;

export class Connection {
  private readonly frames: FrameReader;
  private readonly slots: Slot[] = [];
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private readonly clientHost: string;
  /** Who is connected (principal) and through which listener: see session.ts. */
  readonly session: Session;
  private readonly produceOrder = new ProduceOrder();
  /** The SASL exchange on a sasl+ listener (its own module); undefined elsewhere. */
  private readonly sasl: SaslAuthenticator | undefined;
  /** Handlers started and not finished; all Produce when runningProduceOnly. */
  private running = 0;
  private flushScheduled = false;
  /** A failed authentication's answer is the last: close once it is written. */
  private closeWhenFlushed = false;
  private runningProduceOnly = false;
  /** Decoded requests waiting for the ones before them to finish. */
  private readonly waiting: { produce: boolean; start: () => void }[] = [];
  /** Bytes of finished responses not yet handed to the socket. */
  private encodedUnwritten = 0;
  /** Request bytes this connection holds in the pool (frames admitted and not yet answered). */
  private held = 0;
  private readonly wakeOnMemory = () => this.retryAdmission();
  /** Last time bytes came in, a response went out or the client took response bytes (CONNECTIONS_MAX_IDLE_MS). */
  private lastActiveMs: number;
  private readonly openedMs: number;
  /** Over a client quota: neither read nor start requests until this timer fires (KIP-219 muting). */
  private throttleTimer: NodeJS.Timeout | undefined;
  private mutedUntil = 0;

  constructor(
    private readonly socket: Socket,
    private readonly broker: BrokerContext,
    private readonly handlers: ReadonlyMap<number, ApiHandler>,
    readonly id: number,
    private readonly shared: ConnectionShared,
    listener: ListenerInfo = PLAINTEXT_LISTENER,
  ) {
    this.session = newSession(listener, socket.remoteAddress);
    const saslListener = usesSasl(listener.securityProtocol);
    if (saslListener && !shared.sasl)
      throw new Error(`listener ${listener.name} has SASL but the broker gave no SASL services`);
    this.sasl = saslListener ? new SaslAuthenticator(this.session, shared.sasl!) : undefined;
    this.frames = new FrameReader(broker.config.maxRequestBytes, (size) => this.admit(size));
    this.clientHost = `/${this.session.clientAddress}`; // Kafka's form in DescribeGroups
    this.lastActiveMs = this.openedMs = performance.now();
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('drain', () => this.onDrain());
    socket.on('error', (err) => broker.logger.debug('connection error', { connectionId: id, err }));
    socket.on('close', () => this.onClose());
  }

  get inFlight(): number {
    return this.slots.length;
  }

  /**
   * Idle (CONNECTIONS_MAX_IDLE_MS): nothing received, answered or taken by the client since
   * `sinceMs` (performance.now() time), and no request being handled: a long-poll fetch in
   * flight is not idle, nor is a connection we stopped reading for lack of pool memory.
   */
  idleSince(sinceMs: number): boolean {
    if (this.closed || this.lastActiveMs > sinceMs || this.frames.blocked) return false;
    // A finished answer not yet flushed (flush runs on setImmediate, after the timers phase the
    // sweep runs in) or still in the socket's buffer is not idle: closing then would drop it.
    return this.slots.length === 0 && this.socket.writableLength === 0;
  }

  /**
   * On a sasl+ listener: opened before `sinceMs` (performance.now() time) and still not logged in
   * (nor failed, whose close is on its way). Such a connection holds one of its address's
   * unauthenticated slots, so the registry closes it past a deadline even while it keeps talking.
   */
  loginOverdue(sinceMs: number): boolean {
    return !this.closed && this.openedMs < sinceMs && this.sasl?.awaitingLogin === true;
  }

  /** Bytes of responses the client has not taken yet. */
  private get pendingResponseBytes(): number {
    return this.socket.writableLength + this.encodedUnwritten;
  }

  private get congested(): boolean {
    return this.pendingResponseBytes >= MAX_PENDING_RESPONSE_BYTES;
  }

  /** Resolves once every request received so far has been answered. */
  drained(): Promise<void> {
    if (this.slots.length === 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
  }

  private onClose(): void {
    this.closed = true;
    this.sasl?.closed();
    this.waiting.length = 0;
    for (const slot of this.slots) slot.hold?.releaseAll();
    this.slots.length = 0;
    this.encodedUnwritten = 0;
    clearTimeout(this.throttleTimer);
    this.throttleTimer = undefined;
    this.shared.pool.cancel(this.wakeOnMemory);
    this.shared.pool.release(this.held);
    this.held = 0;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  /**
   * Reserves a frame's bytes when its size prefix arrives. Besides the pool, one connection may
   * hold several unanswered requests only while they total at most one maximum frame, so a single
   * pipelining client cannot take the whole pool from the others.
   */
  private admit(size: number): boolean {
    if (this.held > 0 && this.held + size > this.broker.config.maxRequestBytes) return false; // retried when its own requests are answered
    if (!this.shared.pool.tryReserve(size)) {
      this.shared.pool.onRelease(this.wakeOnMemory);
      return false;
    }
    this.held += size;
    return true;
  }

  /** The request of this frame is answered (or will never be): its bytes go back to the pool. */
  private releaseRequest(bytes: number): void {
    if (this.closed || bytes === 0) return;
    this.held -= bytes;
    this.shared.pool.release(bytes);
    if (this.frames.blocked) this.retryAdmission();
  }

  private retryAdmission(): void {
    if (this.closed || !this.frames.blocked) return;
    this.onData(Buffer.alloc(0));
  }

  private onData(chunk: Buffer): void {
    if (chunk.length > 0) this.lastActiveMs = performance.now();
    let frames: Buffer[];
    try {
      frames = this.frames.push(chunk);
    } catch (err) {
      this.reject('oversize frame', err as Error);
      return;
    }
    for (const frame of frames) {
      if (this.closed) return;
      this.onFrame(frame);
    }
    this.updateReading();
  }

  /** Reads while the connection may take more requests; pauses otherwise (the reasons above). */
  private updateReading(): void {
    if (this.closed) return;
    const stop =
      this.slots.length >= MAX_IN_FLIGHT || this.congested || this.frames.blocked || this.throttleTimer !== undefined;
    if (stop && !this.socket.isPaused()) this.socket.pause();
    else if (!stop && this.socket.isPaused()) this.socket.resume();
  }

  private onDrain(): void {
    this.lastActiveMs = performance.now();
    this.flush();
  }

  private reject(why: string, err: Error, fields: Record<string, unknown> = {}): void {
    const level = err instanceof FrameTooLargeError || err instanceof DecodeError ? 'warn' : 'error';
    // Rate-limited per reason: a flood of bad clients is one line per reason and interval.
    this.shared.warnings.log(level, `closing connection: ${why}`, {
      connectionId: this.id,
      remote: `${this.socket.remoteAddress}:${this.socket.remotePort}`,
      err,
      ...fields,
    });
    this.close();
  }

  private onFrame(frame: Buffer): void {
    const started = performance.now();
    const reserved = frame.length;
    const r = new Reader(frame);
    let apiKey = -1;
    let apiVersion = -1;
    let correlationId = -1;
    // After SaslHandshake v0 the next frames are bare SASL tokens, not requests (no header to read).
    if (this.sasl?.awaitingRawToken) {
      this.answerRawToken(frame);
      return;
    }
    try {
      apiKey = r.int16();
      apiVersion = r.int16();
      correlationId = r.int32();
      if (this.sasl && this.routeSasl(apiKey, apiVersion, correlationId)) return;
      const handler = this.handlers.get(apiKey);
      const spec = API_SPEC_BY_KEY.get(apiKey);
      if (apiKey === ApiKey.ApiVersions && handler && apiVersion > handler.maxVersion) {
        // KIP-511: a client newer than us gets error 35 and, like Kafka, only the ApiVersions range
        // in a v0 body: enough to retry with a version we know.
        const own = apiVersionsBody(this.handlers).apiKeys.filter((k) => k.apiKey === ApiKey.ApiVersions);
        this.push(correlationId, apiKey, 0, {
          errorCode: ErrorCode.UNSUPPORTED_VERSION,
          apiKeys: own,
          throttleTimeMs: 0,
        });
        this.broker.metrics?.requested(apiKey);
        this.broker.metrics?.answered(apiKey, { errorCode: ErrorCode.UNSUPPORTED_VERSION });
        this.releaseRequest(reserved);
        return;
      }
      const unserved = !handler && spec ? unservedAnswer(spec, apiVersion) : null;
      if (unserved) {
        this.push(correlationId, apiKey, apiVersion, unserved);
        this.broker.metrics?.requested(apiKey);
        this.broker.metrics?.answered(apiKey, { errorCode: ErrorCode.UNSUPPORTED_VERSION });
        this.releaseRequest(reserved);
        return;
      }
      if (!handler || !spec) {
        this.reject('unsupported API key', new DecodeError(`API key ${apiKey} is not supported`), {
          apiKey,
          apiVersion,
          correlationId,
        });
        return;
      }
      if (apiVersion < handler.minVersion || apiVersion > handler.maxVersion) {
        this.reject(
          'unsupported API version',
          new DecodeError(`${spec.name} v${apiVersion} is not supported (${handler.minVersion}-${handler.maxVersion})`),
          {
            apiKey,
            apiVersion,
            correlationId,
          },
        );
        return;
      }
      if (this.broker.config.dumpFramesDir) this.dumpFrame(spec.name, apiVersion, correlationId, frame);
      const headerVersion = requestHeaderVersion(apiKey, apiVersion);
      const clientId = headerVersion >= 1 ? r.nullableString() : null;
      if (headerVersion >= 2) r.skipTaggedFields();
      const testPrincipal = this.shared.testOnlyPrincipalForClientId?.(clientId);
      if (testPrincipal) this.session.principal = testPrincipal;
      const request = spec.decodeRequest(r, apiVersion);
      const ctx: RequestContext = {
        broker: this.broker,
        apiKey,
        apiVersion,
        correlationId,
        clientId,
        connectionId: this.id,
        clientHost: this.clientHost,
        session: this.session,
        sasl: this.sasl,
        produceOrder: this.produceOrder,
      };
      const slot: Slot = { done: false, chunks: null, bytes: 0 };
      if (apiKey === ApiKey.Fetch && this.broker.responseMemory)
        slot.hold = ctx.responseHold = new ResponseHold(this.broker.responseMemory);
      this.slots.push(slot);
      const metrics = this.broker.metrics;
      metrics?.requested(apiKey);
      // Client quotas (server/quotas): looked at only when one is set, so without quotas a request
      // costs one property read more.
      const quotasOn = this.broker.quotas.clientQuotasOn;
      let handlerMs = 0;
      const finish = (body: unknown): void | Promise<void> => {
        let sent = body;
        if (quotasOn) sent = this.finishWithQuotas(slot, ctx, reserved, handlerMs, body);
        else if (body !== null && !this.closed) {
          // A large answer is encoded in slices (sliced-encoding.ts); its slot stays unfinished, so
          // the answers after it wait: responses go out in request order.
          const field = slicedField(apiKey, body);
          if (field !== undefined) {
            const encode = (b: unknown) => this.encode(correlationId, apiKey, apiVersion, b);
            return encodeInSlices(encode, body as Record<string, unknown>, field).then((chunks) => {
              if (!this.closed) this.setResponse(slot, chunks);
              answered(body);
            });
          }
          this.setResponse(slot, this.encode(correlationId, apiKey, apiVersion, body));
        }
        answered(sent);
      };
      const answered = (sent: unknown) => {
        if (ctx.mutationThrottleMs && !this.closed) this.mute(ctx.mutationThrottleMs);
        if (metrics && !this.closed) metrics.answered(apiKey, sent);
        if (!slot.chunks) slot.hold?.releaseAll(); // nothing will be written (no response, or closed)
        slot.done = true;
        if (this.sasl?.failed) this.closeWhenFlushed = true;
        if (this.broker.logger.enabled('debug')) {
          this.broker.logger.debug('request', {
            connectionId: this.id,
            api: spec.name,
            apiVersion,
            correlationId,
            clientId,
            ms: Math.round((performance.now() - started) * 1000) / 1000,
          });
        }
        this.scheduleFlush();
      };
      const fail = (err: unknown) => this.answerFailure(slot, ctx, spec.name, request, err, finish);
      const produce = apiKey === ApiKey.Produce;
      this.schedule(produce, () => {
        const done = () => {
          // A handler that went on after its connection closed may have taken memory since.
          if (this.closed) slot.hold?.releaseAll();
          this.releaseRequest(reserved);
          this.handlerDone();
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
    } catch (err) {
      if (err instanceof DecodeError) this.reject('malformed request', err, { apiKey, apiVersion, correlationId });
      else this.reject('request failed', err as Error, { apiKey, apiVersion, correlationId });
    }
  }

  /**
   * A handler threw (the database out of reach, or a bug) or its answer did not encode: Kafka's
   * answer for an unexpected error (KafkaApis.handleError), the error in every error field of the
   * API's response (error-answers/), rather than closing a connection the client would take for a
   * dead broker. Logged once per burst. Closes when no answer is due (Produce acks=0) or the error
   * answer itself fails. Never throws.
   */
  private answerFailure(
    slot: Slot,
    ctx: RequestContext,
    api: string,
    request: unknown,
    err: unknown,
    finish: (body: unknown) => void | Promise<void>,
  ): void {
    if (this.closed) return;
    const storage = err instanceof StorageError;
    let answer: { body: unknown; code: number } | undefined;
    // An answer already (partly) made cannot be replaced: close.
    if (!slot.done && slot.chunks === null) {
      try {
        answer = errorAnswer(ctx, request, err);
      } catch {
        answer = undefined;
      }
    }
    if (!answer || answer.body === null) {
      this.reject(`${api} handler failed`, err as Error, { correlationId: ctx.correlationId });
      return;
    }
    const why = storage ? 'storage unavailable: answering with a retriable error' : `${api} handler failed: answering`;
    this.shared.warnings.log(storage ? 'warn' : 'error', why, {
      connectionId: this.id,
      api,
      errorCode: answer.code,
      err,
    });
    const failed = (e: unknown) =>
      this.reject(`${api} error answer failed`, e as Error, { correlationId: ctx.correlationId });
    try {
      finish(answer.body)?.catch(failed); // a large error answer is encoded in slices
    } catch (e) {
      failed(e);
    }
  }

  /**
   * Encodes the response and records the request against its client's quotas (request bytes,
   * response bytes, handler and encoding time); over a quota, the response carries the throttle
   * time (a fetch then carries no data) and goes out at once, and the connection is muted for
   * that time (KIP-219). Returns the body sent (the throttled one, if throttled).
   */
  private finishWithQuotas(
    slot: Slot,
    ctx: RequestContext,
    requestBytes: number,
    handlerMs: number,
    body: unknown,
  ): unknown {
    if (this.closed) return body;
    const t0 = performance.now();
    let chunks = body === null ? null : this.encode(ctx.correlationId, ctx.apiKey, ctx.apiVersion, body);
    const responseBytes = chunks ? chunks.reduce((n, c) => n + c.length, 0) : 0;
    const t = recordRequest(
      this.broker.quotas,
      {
        apiKey: ctx.apiKey,
        user: this.session.principal.name,
        clientId: ctx.clientId ?? '',
        requestBytes,
        responseBytes,
        handlerMs: handlerMs + (performance.now() - t0),
        noResponse: body === null,
      },
      Date.now(),
    );
    let sent = body;
    if (t.throttleMs > 0) {
      if (body !== null) {
        sent = throttledBody(body, t);
        chunks = this.encode(ctx.correlationId, ctx.apiKey, ctx.apiVersion, sent);
      }
      this.mute(t.throttleMs);
    }
    if (chunks) this.setResponse(slot, chunks);
    return sent;
  }

  /** Stops reading and starting requests for `ms` (or longer, if already muted for longer). */
  private mute(ms: number): void {
    const until = performance.now() + ms;
    if (this.throttleTimer !== undefined && until <= this.mutedUntil) return;
    this.mutedUntil = until;
    clearTimeout(this.throttleTimer);
    this.throttleTimer = setTimeout(() => {
      this.throttleTimer = undefined;
      if (this.closed) return;
      this.startWaiting();
      this.updateReading();
    }, ms);
    this.updateReading();
  }

  /**
   * On a sasl+ listener, before the body is parsed: closes the connection for a request not allowed
   * in the SASL state (true: the frame was dealt with here).
   */
  private routeSasl(apiKey: number, apiVersion: number, correlationId: number): boolean {
    const decision = this.sasl!.route(apiKey, this.broker.now());
    if (decision.route === 'request') return false;
    this.shared.warnings.log('info', 'closing connection: request not allowed in its SASL state', {
      connectionId: this.id,
      remote: `${this.socket.remoteAddress}:${this.socket.remotePort}`,
      why: decision.why,
      apiKey,
      apiVersion,
      correlationId,
    });
    this.close();
    return true;
  }

  /** An unframed SASL token (after SaslHandshake v0): the whole frame, answered by a size-prefixed token. */
  private answerRawToken(frame: Buffer): void {
    const slot: Slot = { done: false, chunks: null, bytes: 0 };
    this.slots.push(slot);
    this.schedule(false, () => {
      this.sasl!.rawToken(frame)
        .then(
          (token) => {
            if (this.closed) return;
            if (token === null) {
              this.close();
              return;
            }
            const size = Buffer.alloc(4);
            size.writeInt32BE(token.length, 0);
            this.setResponse(slot, [size, token]);
            slot.done = true;
            this.scheduleFlush();
          },
          (err) => this.reject('SASL token failed', err as Error),
        )
        .finally(() => {
          this.releaseRequest(frame.length);
          this.handlerDone();
        });
    });
  }

  /** --dump-frames: the request frame (without its size prefix) as hex, named api-vN-connection-correlation. */
  private dumpFrame(api: string, apiVersion: number, correlationId: number, frame: Buffer): void {
    const dir = this.broker.config.dumpFramesDir!;
    fs.mkdirSync(dir, { recursive: true });
    const name = `${api.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}-request-v${apiVersion}-c${this.id}-${correlationId}.hex`;
    fs.writeFileSync(path.join(dir, name), frame.toString('hex') + '\n');
  }

  /**
   * Kafka processes the requests of one connection in order (a produce is visible to the next
   * request on that connection), so a handler starts only when the previous one has finished.
   * The exception keeps pipelined produces fast: consecutive Produce requests start together,
   * since the append queue applies them in arrival order (and in one transaction).
   */
  private schedule(produce: boolean, start: () => void): void {
    const canStart =
      !this.congested &&
      this.throttleTimer === undefined &&
      (this.running === 0 || (produce && this.runningProduceOnly && this.waiting.length === 0));
    if (!canStart) {
      this.waiting.push({ produce, start });
      return;
    }
    this.runningProduceOnly = this.running === 0 ? produce : this.runningProduceOnly && produce;
    this.running++;
    start();
  }

  private handlerDone(): void {
    this.running--;
    this.startWaiting();
  }

  /**
   * Starts the next request, and with it any produces queued right behind a produce; none while
   * the client has not taken the responses already made (they would only pile up in memory).
   */
  private startWaiting(): void {
    if (this.running > 0 || this.closed) return;
    while (this.waiting.length > 0 && !this.congested && this.throttleTimer === undefined) {
      const next = this.waiting[0]!;
      if (this.running > 0 && !(next.produce && this.runningProduceOnly)) break;
      this.waiting.shift();
      this.runningProduceOnly = this.running === 0 ? next.produce : this.runningProduceOnly && next.produce;
      this.running++;
      next.start();
    }
  }

  /** Queues an already complete response (no handler involved). */
  private push(correlationId: number, apiKey: number, apiVersion: number, body: unknown): void {
    const slot: Slot = { done: true, chunks: null, bytes: 0 };
    this.setResponse(slot, this.encode(correlationId, apiKey, apiVersion, body));
    this.slots.push(slot);
    this.scheduleFlush();
  }

  private setResponse(slot: Slot, chunks: Buffer[]): void {
    slot.chunks = chunks;
    slot.bytes = chunks.reduce((n, c) => n + c.length, 0);
    this.encodedUnwritten += slot.bytes;
  }

  private encode(correlationId: number, apiKey: number, apiVersion: number, body: unknown): Buffer[] {
    const w = new Writer(256);
    w.int32(0); // size, patched below
    w.int32(correlationId);
    if (responseHeaderVersion(apiKey, apiVersion) >= 1) w.uvarint(0);
    API_SPEC_BY_KEY.get(apiKey)!.encodeResponse(w, apiVersion, body);
    const chunks = w.toChunks();
    chunks[0]!.writeInt32BE(w.length - 4, 0);
    return chunks;
  }

  /**
   * Responses that finish in the same turn of the event loop (e.g. the produces of one group
   * commit) go out in one write: a socket write is a system call, and at thousands of small
   * requests a second those calls were a third of the broker's CPU.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /**
   * Writes the finished responses at the head of the queue, in request order, while the socket
   * holds less than MAX_PENDING_RESPONSE_BYTES; the rest go out on 'drain'. Then starts waiting
   * handlers and resumes reading if the connection is no longer over its bounds.
   */
  private flush(): void {
    if (this.closed) return;
    const out: Buffer[] = [];
    const holds: ResponseHold[] = [];
    let bytes = 0;
    // `bytes`: what this flush will hand to the socket, counted as if already in its buffer.
    while (
      this.slots.length > 0 &&
      this.slots[0]!.done &&
      this.socket.writableLength + bytes < MAX_PENDING_RESPONSE_BYTES
    ) {
      const slot = this.slots.shift()!;
      if (slot.hold) holds.push(slot.hold);
      if (slot.chunks) {
        this.encodedUnwritten -= slot.bytes;
        bytes += slot.bytes;
        for (const c of slot.chunks) out.push(c);
      }
    }
    const written = holds.length === 0 ? undefined : () => holds.forEach((h) => h.releaseAll());
    if (out.length > 0) {
      this.write(out, bytes, written);
      this.lastActiveMs = performance.now(); // answering a long poll starts the idle time afresh
    } else written?.();
    if (this.closeWhenFlushed && this.slots.length === 0) {
      this.closeGracefully();
      return;
    }
    this.startWaiting();
    this.updateReading();
    if (this.slots.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /**
   * Hands response chunks to the socket in one system call. Small ones (produce answers, metadata,
   * a fetch with little data) are joined into one buffer and written as is: a corked stream of
   * several chunks goes through the stream's buffered-write path and writev, which cost more
   * JavaScript per response than the copy of a few hundred bytes (the seed load's profile). Large
   * responses (fetched record batches) keep their chunks and go out in one writev, uncopied.
   */
  private write(chunks: Buffer[], bytes: number, written?: () => void): void {
    // `written` runs once the socket has taken the bytes (or was destroyed with them).
    if (chunks.length === 1 || bytes <= JOIN_RESPONSES_UP_TO_BYTES) {
      this.socket.write(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes), written);
      return;
    }
    this.socket.cork();
    for (let i = 0; i < chunks.length; i++)
      this.socket.write(chunks[i]!, i === chunks.length - 1 ? written : undefined);
    this.socket.uncork();
  }

  /** Ends the connection after what was written reaches the client (destroyed if it does not read). */
  private closeGracefully(): void {
    this.closed = true;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), CLOSE_AFTER_FAILURE_MS).unref();
  }
}
