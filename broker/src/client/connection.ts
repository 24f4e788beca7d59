// One client connection to a Kafka broker: request/response over the generated codec,
// correlated by id, with version negotiation from ApiVersions.
import * as net from 'node:net';
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import { responseHeaderVersion } from '../protocol/headers';
import type { ApiVersionsResponse } from '../protocol/messages';
import { API_SPEC_BY_KEY } from '../protocol/messages/registry';
import { Reader } from '../protocol/reader';
import { encodeRequestFrameChunks } from '../protocol/request-frame';
import { FrameReader } from '../protocol/frame-reader';
import { KafkaClientError } from './errors';
import { authenticate, SaslCredentials } from './sasl';

const MAX_RESPONSE_BYTES = 1024 * 1024 * 1024;

export { KafkaClientError };

interface Pending {
  apiKey: number;
  apiVersion: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each pending request resolves its own response type
  resolve: (body: any) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export interface ConnectOptions {
  clientId?: string;
  /** Per request, ms. */
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Authenticate with SASL (a sasl+tcp:// or sasl+tls:// listener) right after ApiVersions. */
  sasl?: SaslCredentials;
}

export class KafkaConnection {
  private nextCorrelationId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly frames = new FrameReader(MAX_RESPONSE_BYTES);
  /** Broker ranges per API key, from ApiVersions. */
  private ranges = new Map<number, { min: number; max: number }>();
  private closedError: Error | null = null;

  private constructor(
    private readonly socket: net.Socket,
    readonly address: string,
    private readonly opts: Required<ConnectOptions>,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      try {
        for (const f of this.frames.push(chunk)) this.onFrame(f);
      } catch (err) {
        this.fail(err as Error);
      }
    });
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new KafkaClientError(`connection to ${address} closed`)));
  }

  static async connect(host: string, port: number, options: ConnectOptions = {}): Promise<KafkaConnection> {
    const opts = {
      clientId: 'minnow-cli',
      requestTimeoutMs: 30_000,
      connectTimeoutMs: 10_000,
      sasl: undefined,
      ...options,
    } as Required<ConnectOptions>;
    const address = `${host}:${port}`;
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect({ host, port });
      const timer = setTimeout(() => {
        s.destroy();
        reject(
          new KafkaClientError(
            `could not connect to ${address} within ${opts.connectTimeoutMs} ms; is a broker running there?`,
          ),
        );
      }, opts.connectTimeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        resolve(s);
      });
      s.once('error', (err) => {
        clearTimeout(timer);
        reject(new KafkaClientError(`could not connect to ${address}: ${err.message}; is a broker running there?`));
      });
    });
    const conn = new KafkaConnection(socket, address, opts);
    try {
      await conn.negotiate();
      if (opts.sasl) await authenticate(conn, opts.sasl);
    } catch (err) {
      conn.close();
      throw err;
    }
    return conn;
  }

  /** ApiVersions v3 first (flexible), falling back to v0 on error 35 (KIP-511). */
  private async negotiate(): Promise<void> {
    let res: ApiVersionsResponse = await this.send(ApiKey.ApiVersions, 3, {
      clientSoftwareName: 'minnow',
      clientSoftwareVersion: '0.1.0',
    });
    if (res.errorCode === ErrorCode.UNSUPPORTED_VERSION) res = await this.send(ApiKey.ApiVersions, 0, {});
    if (res.errorCode !== ErrorCode.NONE)
      throw new KafkaClientError(`ApiVersions failed: ${errorName(res.errorCode)}`, res.errorCode);
    this.ranges = new Map(res.apiKeys.map((k) => [k.apiKey, { min: k.minVersion, max: k.maxVersion }]));
  }

  /** Highest version both sides support, within [ourMin, ourMax]. */
  version(apiKey: number, ourMin: number, ourMax: number): number {
    const r = this.ranges.get(apiKey);
    const name = API_SPEC_BY_KEY.get(apiKey)?.name ?? `API ${apiKey}`;
    if (!r) throw new KafkaClientError(`the broker at ${this.address} does not support ${name}`);
    const v = Math.min(r.max, ourMax);
    if (v < Math.max(r.min, ourMin))
      throw new KafkaClientError(`no common version of ${name}: broker ${r.min}-${r.max}, client ${ourMin}-${ourMax}`);
    return v;
  }

  /** Sends a request and resolves with the decoded response body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers name the response type they decode
  send<Res = any>(apiKey: number, apiVersion: number, body: unknown, expectResponse = true): Promise<Res> {
    if (this.closedError) return Promise.reject(this.closedError);
    const spec = API_SPEC_BY_KEY.get(apiKey);
    if (!spec) return Promise.reject(new KafkaClientError(`unknown API key ${apiKey}`));
    const correlationId = this.nextCorrelationId++;
    const chunks = encodeRequestFrameChunks(apiKey, apiVersion, correlationId, this.opts.clientId, body);
    this.socket.cork();
    for (const c of chunks) this.socket.write(c);
    this.socket.uncork();
    if (!expectResponse) return Promise.resolve(undefined as Res);
    return new Promise<Res>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(
          new KafkaClientError(
            `${spec.name} request to ${this.address} timed out after ${this.opts.requestTimeoutMs} ms`,
          ),
        );
      }, this.opts.requestTimeoutMs);
      this.pending.set(correlationId, { apiKey, apiVersion, resolve, reject, timer });
    });
  }

  private onFrame(frame: Buffer): void {
    const r = new Reader(frame);
    const correlationId = r.int32();
    const p = this.pending.get(correlationId);
    if (!p) throw new KafkaClientError(`response with unknown correlation id ${correlationId}`);
    this.pending.delete(correlationId);
    clearTimeout(p.timer);
    if (responseHeaderVersion(p.apiKey, p.apiVersion) >= 1) r.skipTaggedFields();
    // An error-35 ApiVersions answer comes as a v0 body whatever version was asked (KIP-511).
    let version = p.apiVersion;
    if (p.apiKey === ApiKey.ApiVersions && frame.length >= 6 && frame.readInt16BE(4) === ErrorCode.UNSUPPORTED_VERSION)
      version = 0;
    try {
      p.resolve(API_SPEC_BY_KEY.get(p.apiKey)!.decodeResponse(r, version));
    } catch (err) {
      p.reject(err as Error);
    }
  }

  private fail(err: Error): void {
    if (!this.closedError) this.closedError = err;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    this.socket.destroy();
  }

  close(): void {
    this.fail(new KafkaClientError('connection closed by client'));
  }
}

export function parseHostPort(s: string, defaultPort = 9092): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(s.trim());
  if (!m) throw new KafkaClientError(`bad broker address "${s}", expected HOST:PORT`);
  return { host: m[1]!, port: m[2] ? Number(m[2]) : defaultPort };
}
