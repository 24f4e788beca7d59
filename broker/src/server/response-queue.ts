// A connection's answers, strictly in request order: one slot per request, filled when its handler
// finishes (encoded at once, or in slices for a large answer), written to the socket from the head
// of the queue while the client keeps taking them.
import type { Socket } from 'node:net';
import { responseHeaderVersion } from '../protocol/headers';
import { API_SPEC_BY_KEY } from '../protocol/messages/registry';
import { Writer } from '../protocol/writer';
import type { ResponseHold } from './response-memory';
import { encodeInSlices, slicedField } from './sliced-encoding';

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

/** Responses of at most this many bytes in all are copied into one buffer before writing (see write()). */
const JOIN_RESPONSES_UP_TO_BYTES = 16 * 1024;

/** One request's place in the queue. */
export interface ResponseSlot {
  done: boolean;
  /** Encoded response frame, or null when no response is due. */
  chunks: Buffer[] | null;
  /** Bytes of `chunks`. */
  bytes: number;
  /** A Fetch's or ShareFetch's share of the broker's response memory, released once the socket has taken it. */
  hold?: ResponseHold;
}

/** Which request a response answers (its header and how its body encodes). */
export interface ResponseHeader {
  correlationId: number;
  apiKey: number;
  apiVersion: number;
}

/** A response frame: size, header, body; in chunks (a fetch's record batches are not copied). */
export function encodeResponse(header: ResponseHeader, body: unknown): Buffer[] {
  const { correlationId, apiKey, apiVersion } = header;
  const w = new Writer(256);
  w.int32(0); // size, patched below
  w.int32(correlationId);
  if (responseHeaderVersion(apiKey, apiVersion) >= 1) w.uvarint(0);
  API_SPEC_BY_KEY.get(apiKey)!.encodeResponse(w, apiVersion, body);
  const chunks = w.toChunks();
  chunks[0]!.writeInt32BE(w.length - 4, 0);
  return chunks;
}

export class ResponseQueue {
  private readonly slots: ResponseSlot[] = [];
  /** Bytes of finished responses not yet handed to the socket. */
  private encodedUnwritten = 0;
  private flushScheduled = false;
  private idleWaiters: (() => void)[] = [];

  /**
   * `flush` is the connection's: it writes (writeFinished) and then looks at its other bounds;
   * `closed` tells whether the connection has closed (a sliced answer finishing late is dropped).
   */
  constructor(
    private readonly socket: Socket,
    private readonly flush: () => void,
    private readonly closed: () => boolean,
  ) {}

  /** Requests in the queue: answered or not, not yet written. */
  get length(): number {
    return this.slots.length;
  }

  /** Bytes of responses the client has not taken yet. */
  get pendingBytes(): number {
    return this.socket.writableLength + this.encodedUnwritten;
  }

  get congested(): boolean {
    return this.pendingBytes >= MAX_PENDING_RESPONSE_BYTES;
  }

  /** A request's place, behind every request received before it. */
  open(hold?: ResponseHold): ResponseSlot {
    const slot: ResponseSlot = { done: false, chunks: null, bytes: 0 };
    if (hold) slot.hold = hold;
    this.slots.push(slot);
    return slot;
  }

  /** Queues an already complete response (no handler involved). */
  push(header: ResponseHeader, body: unknown): void {
    const slot: ResponseSlot = { done: true, chunks: null, bytes: 0 };
    this.setResponse(slot, encodeResponse(header, body));
    this.slots.push(slot);
    this.scheduleFlush();
  }

  /**
   * Encodes `body` into its slot. A large answer is encoded in slices (sliced-encoding.ts): then
   * the returned promise settles when it is done, and until then its slot stays unfinished, so the
   * answers after it wait: responses go out in request order.
   */
  answer(slot: ResponseSlot, header: ResponseHeader, body: unknown): Promise<void> | undefined {
    const field = slicedField(header.apiKey, body);
    if (field === undefined) {
      this.setResponse(slot, encodeResponse(header, body));
      return undefined;
    }
    const encode = (b: unknown) => encodeResponse(header, b);
    return encodeInSlices(encode, body as Record<string, unknown>, field).then((chunks) => {
      if (!this.closed()) this.setResponse(slot, chunks);
    });
  }

  setResponse(slot: ResponseSlot, chunks: Buffer[]): void {
    slot.chunks = chunks;
    slot.bytes = chunks.reduce((n, c) => n + c.length, 0);
    this.encodedUnwritten += slot.bytes;
  }

  /**
   * Responses that finish in the same turn of the event loop (e.g. the produces of one group
   * commit) go out in one write: a socket write is a system call, and at thousands of small
   * requests a second those calls were a third of the broker's CPU.
   */
  scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  /**
   * Writes the finished responses at the head of the queue, in request order, while the socket
   * holds less than MAX_PENDING_RESPONSE_BYTES; the rest go out on 'drain'. True when bytes went
   * to the socket.
   */
  writeFinished(): boolean {
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
    if (out.length === 0) {
      written?.();
      return false;
    }
    this.write(out, bytes, written);
    return true;
  }

  /** Resolves once every request received so far has been answered (or the connection closed). */
  drained(): Promise<void> {
    if (this.slots.length === 0 || this.closed()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Wakes drained() callers once the queue is empty. */
  notifyIfEmpty(): void {
    if (this.slots.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** The connection closed: nothing more will be written; response memory goes back at once. */
  clear(): void {
    for (const slot of this.slots) slot.hold?.releaseAll();
    this.slots.length = 0;
    this.encodedUnwritten = 0;
    for (const w of this.idleWaiters.splice(0)) w();
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
}
