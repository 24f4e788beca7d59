// One client connection: frames in, handlers run (concurrently, e.g. long-poll fetches), responses
// out strictly in request order. Reading pauses while too many requests are in flight, while the
// responses not yet taken by the client exceed a bound, and while the broker-wide request memory
// pool cannot hold the next frame.
import type { Socket } from 'node:net';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode } from '../protocol/error-codes';
import { DecodeError } from '../protocol/errors';
import { FrameReader, FrameTooLargeError } from '../protocol/frame-reader';
import { requestHeaderVersion } from '../protocol/headers';
import { Reader } from '../protocol/reader';
import type { WarningLimiter } from '../logger';
import { ConnectionMute } from './connection-throttle';
import type { ApiHandler, BrokerContext, RequestContext } from './context';
import { dumpRequestFrame } from './frame-dump';
import { usesSasl } from './listeners';
import { ProduceOrder } from './produce-order';
import { RequestAdmission } from './request-admission';
import { dispatchRequest, DispatchingConnection } from './request-dispatch';
import type { RequestMemoryPool } from './request-memory-pool';
import { routeRequest } from './request-routing';
import { RequestScheduler } from './request-scheduler';
import { ResponseHold } from './response-memory';
import { ResponseQueue } from './response-queue';
import { SaslAuthenticator, SaslServices } from './sasl/sasl-authenticator';
import { KafkaPrincipal, ListenerInfo, newSession, PLAINTEXT_LISTENER, Session } from './session';

/** Requests a connection may have in flight before we stop reading from it (backpressure). */
const MAX_IN_FLIGHT = 64;

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

/** After a failed authentication the response goes out, then the connection closes; this long at most. */
const CLOSE_AFTER_FAILURE_MS = 5000;

export class Connection {
  private readonly frames: FrameReader;
  private closed = false;
  private readonly clientHost: string;
  /** Who is connected (principal) and through which listener: see session.ts. */
  readonly session: Session;
  private readonly produceOrder = new ProduceOrder();
  /** The SASL exchange on a sasl+ listener (its own module); undefined elsewhere. */
  private readonly sasl: SaslAuthenticator | undefined;
  /** The answers, in request order (response-queue.ts). */
  private readonly responses: ResponseQueue;
  /** When decoded requests start their handlers (request-scheduler.ts). */
  private readonly scheduler: RequestScheduler;
  /** This connection's share of the request memory pool (request-admission.ts). */
  private readonly admission: RequestAdmission;
  /** Over a client quota: neither read nor start requests until this timer fires (KIP-219 muting). */
  private readonly throttle: ConnectionMute;
  /** A failed authentication's answer is the last: close once it is written. */
  private closeWhenFlushed = false;
  /** Last time bytes came in, a response went out or the client took response bytes (CONNECTIONS_MAX_IDLE_MS). */
  private lastActiveMs: number;
  private readonly openedMs: number;
  /** What a request uses on its way to the answer (request-dispatch.ts). */
  private readonly dispatching: DispatchingConnection;

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
    const isClosed = () => this.closed;
    this.responses = new ResponseQueue(socket, () => this.flush(), isClosed);
    this.throttle = new ConnectionMute(() => {
      if (this.closed) return;
      this.scheduler.startWaiting();
      this.updateReading();
    });
    this.scheduler = new RequestScheduler(() => !this.responses.congested && !this.throttle.muted, isClosed);
    this.admission = new RequestAdmission(shared.pool, broker.config.maxRequestBytes, () => this.retryAdmission());
    this.frames = new FrameReader(broker.config.maxRequestBytes, (size) => this.admission.admit(size));
    this.dispatching = {
      id,
      warnings: shared.warnings,
      responses: this.responses,
      scheduler: this.scheduler,
      closed: isClosed,
      reject: (why, err, fields) => this.reject(why, err, fields),
      mute: (ms) => this.mute(ms),
      answered: () => {
        if (this.sasl?.failed) this.closeWhenFlushed = true;
      },
      releaseRequest: (bytes) => this.releaseRequest(bytes),
    };
    this.clientHost = `/${this.session.clientAddress}`; // Kafka's form in DescribeGroups
    this.lastActiveMs = this.openedMs = performance.now();
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('drain', () => this.onDrain());
    socket.on('error', (err) => broker.logger.debug('connection error', { connectionId: id, err }));
    socket.on('close', () => this.onClose());
  }

  get inFlight(): number {
    return this.responses.length;
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
    return this.responses.length === 0 && this.socket.writableLength === 0;
  }

  /**
   * On a sasl+ listener: opened before `sinceMs` (performance.now() time) and still not logged in
   * (nor failed, whose close is on its way). Such a connection holds one of its address's
   * unauthenticated slots, so the registry closes it past a deadline even while it keeps talking.
   */
  loginOverdue(sinceMs: number): boolean {
    return !this.closed && this.openedMs < sinceMs && this.sasl?.awaitingLogin === true;
  }

  /** Resolves once every request received so far has been answered. */
  drained(): Promise<void> {
    return this.responses.drained();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
  }

  private onClose(): void {
    this.closed = true;
    this.sasl?.closed();
    // Share sessions opened on this connection end with it; their members' records go back.
    this.broker.shareGroups.connectionClosed(this.id);
    this.scheduler.clear();
    this.throttle.cancel();
    this.admission.close();
    this.responses.clear();
  }

  /** The request of this frame is answered (or will never be): its bytes go back to the pool. */
  private releaseRequest(bytes: number): void {
    if (this.closed || bytes === 0) return;
    this.admission.release(bytes);
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
      this.responses.length >= MAX_IN_FLIGHT || this.responses.congested || this.frames.blocked || this.throttle.muted;
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
      const route = routeRequest(this.handlers, apiKey, apiVersion);
      if (route.to === 'answer') {
        this.responses.push({ correlationId, apiKey, apiVersion: route.apiVersion }, route.body);
        this.broker.metrics?.requested(apiKey);
        this.broker.metrics?.answered(apiKey, { errorCode: ErrorCode.UNSUPPORTED_VERSION });
        this.releaseRequest(reserved);
        return;
      }
      if (route.to === 'close') {
        this.reject(route.why, route.err, { apiKey, apiVersion, correlationId });
        return;
      }
      const { handler, spec } = route;
      if (this.broker.config.dumpFramesDir)
        dumpRequestFrame(this.broker.config.dumpFramesDir, spec.name, apiVersion, this.id, correlationId, frame);
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
      if ((apiKey === ApiKey.Fetch || apiKey === ApiKey.ShareFetch) && this.broker.responseMemory)
        ctx.responseHold = new ResponseHold(this.broker.responseMemory);
      dispatchRequest(this.dispatching, { handler, spec, ctx, request, reserved, started });
    } catch (err) {
      if (err instanceof DecodeError) this.reject('malformed request', err, { apiKey, apiVersion, correlationId });
      else this.reject('request failed', err as Error, { apiKey, apiVersion, correlationId });
    }
  }

  /** Stops reading and starting requests for `ms` (or longer, if already muted for longer). */
  private mute(ms: number): void {
    if (this.throttle.mute(ms)) this.updateReading();
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
    const slot = this.responses.open();
    this.scheduler.schedule({
      produce: false,
      start: () => {
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
              this.responses.setResponse(slot, [size, token]);
              slot.done = true;
              this.responses.scheduleFlush();
            },
            (err) => this.reject('SASL token failed', err as Error),
          )
          .finally(() => {
            this.releaseRequest(frame.length);
            this.scheduler.handlerDone();
          });
      },
    });
  }

  /**
   * Writes the finished responses (response-queue.ts), then starts waiting handlers and resumes
   * reading if the connection is no longer over its bounds.
   */
  private flush(): void {
    if (this.closed) return;
    // Answering a long poll starts the idle time afresh.
    if (this.responses.writeFinished()) this.lastActiveMs = performance.now();
    if (this.closeWhenFlushed && this.responses.length === 0) {
      this.closeGracefully();
      return;
    }
    this.scheduler.startWaiting();
    this.updateReading();
    this.responses.notifyIfEmpty();
  }

  /** Ends the connection after what was written reaches the client (destroyed if it does not read). */
  private closeGracefully(): void {
    this.closed = true;
    this.socket.end();
    setTimeout(() => this.socket.destroy(), CLOSE_AFTER_FAILURE_MS).unref();
  }
}
