// One client connection: frames in, handlers run (concurrently, e.g. long-poll fetches), responses
// out strictly in request order. Reading pauses while too many requests are in flight.
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
import { FrameReader, FrameTooLargeError } from './frame-reader';
import { apiVersionsBody } from './handlers/api-versions';

/** Requests a connection may have in flight before we stop reading from it (backpressure). */
const MAX_IN_FLIGHT = 64;

interface Slot {
  done: boolean;
  /** Encoded response frame, or null when no response is due. */
  chunks: Buffer[] | null;
}

export class Connection {
  private readonly frames: FrameReader;
  private readonly slots: Slot[] = [];
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private readonly clientHost: string;
  /** Handlers started and not finished; all Produce when runningProduceOnly. */
  private running = 0;
  private flushScheduled = false;
  private runningProduceOnly = false;
  /** Decoded requests waiting for the ones before them to finish. */
  private readonly waiting: { produce: boolean; start: () => void }[] = [];

  constructor(
    private readonly socket: Socket,
    private readonly broker: BrokerContext,
    private readonly handlers: ReadonlyMap<number, ApiHandler>,
    readonly id: number,
  ) {
    this.frames = new FrameReader(broker.config.maxRequestBytes);
    this.clientHost = `/${(socket.remoteAddress ?? '').replace(/^::ffff:/, '')}`;
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', (err) => broker.logger.debug('connection error', { connectionId: id, err }));
    socket.on('close', () => this.onClose());
  }

  get inFlight(): number {
    return this.slots.length;
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
    this.waiting.length = 0;
    this.slots.length = 0;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private onData(chunk: Buffer): void {
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
    if (this.slots.length >= MAX_IN_FLIGHT) this.socket.pause();
  }

  private reject(why: string, err: Error, fields: Record<string, unknown> = {}): void {
    const level = err instanceof FrameTooLargeError || err instanceof DecodeError ? 'warn' : 'error';
    this.broker.logger[level](`closing connection: ${why}`, {
      connectionId: this.id,
      remote: `${this.socket.remoteAddress}:${this.socket.remotePort}`,
      err,
      ...fields,
    });
    this.close();
  }

  private onFrame(frame: Buffer): void {
    const started = performance.now();
    const r = new Reader(frame);
    let apiKey = -1;
    let apiVersion = -1;
    let correlationId = -1;
    try {
      apiKey = r.int16();
      apiVersion = r.int16();
      correlationId = r.int32();
      const handler = this.handlers.get(apiKey);
      const spec = API_SPEC_BY_KEY.get(apiKey);
      if (apiKey === ApiKey.ApiVersions && handler && apiVersion > handler.maxVersion) {
        // KIP-511: a client newer than us gets error 35 and, like Kafka, only the ApiVersions range
        // in a v0 body: enough to retry with a version we know.
        const own = apiVersionsBody(this.handlers).apiKeys.filter((k) => k.apiKey === ApiKey.ApiVersions);
        this.push(correlationId, apiKey, 0, { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: own, throttleTimeMs: 0 });
        return;
      }
      if (!handler || !spec) {
        this.reject('unsupported API key', new DecodeError(`API key ${apiKey} is not supported`), { apiKey, apiVersion, correlationId });
        return;
      }
      if (apiVersion < handler.minVersion || apiVersion > handler.maxVersion) {
        this.reject('unsupported API version', new DecodeError(`${spec.name} v${apiVersion} is not supported (${handler.minVersion}-${handler.maxVersion})`), {
          apiKey,
          apiVersion,
          correlationId,
        });
        return;
      }
      if (this.broker.config.dumpFramesDir) this.dumpFrame(spec.name, apiVersion, correlationId, frame);
      const headerVersion = requestHeaderVersion(apiKey, apiVersion);
      const clientId = headerVersion >= 1 ? r.nullableString() : null;
      if (headerVersion >= 2) r.skipTaggedFields();
      const request = spec.decodeRequest(r, apiVersion);
      const ctx: RequestContext = { broker: this.broker, apiKey, apiVersion, correlationId, clientId, connectionId: this.id, clientHost: this.clientHost };
      const slot: Slot = { done: false, chunks: null };
      this.slots.push(slot);
      const finish = (body: unknown) => {
        if (body !== null) slot.chunks = this.encode(correlationId, apiKey, apiVersion, body);
        slot.done = true;
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
      const fail = (err: unknown) => this.reject(`${spec.name} handler failed`, err as Error, { correlationId });
      const produce = apiKey === ApiKey.Produce;
      this.schedule(produce, () => {
        const done = () => this.handlerDone();
        try {
          const result = handler.handle(ctx, request);
          if (result instanceof Promise) {
            result.then(finish, fail).finally(done);
          } else {
            finish(result);
            done();
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
    const canStart = this.running === 0 || (produce && this.runningProduceOnly && this.waiting.length === 0);
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
    if (this.running > 0 || this.closed) return;
    // Start the next request, and with it any produces queued right behind a produce.
    while (this.waiting.length > 0) {
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
    this.slots.push({ done: true, chunks: this.encode(correlationId, apiKey, apiVersion, body) });
    this.scheduleFlush();
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

  /** Writes every finished response at the head of the queue, in request order. */
  private flush(): void {
    if (this.closed) return;
    let wrote = false;
    while (this.slots.length > 0 && this.slots[0]!.done) {
      const slot = this.slots.shift()!;
      if (slot.chunks) {
        if (!wrote) this.socket.cork();
        wrote = true;
        for (const c of slot.chunks) this.socket.write(c);
      }
    }
    if (wrote) this.socket.uncork();
    if (this.slots.length < MAX_IN_FLIGHT && this.socket.isPaused()) this.socket.resume();
    if (this.slots.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }
}
