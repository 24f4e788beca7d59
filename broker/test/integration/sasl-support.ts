// Shared by the SASL integration tests: a broker with one sasl+tcp:// listener (and a tcp:// one),
// users created through storage, a settable clock for KIP-368 expiry, and a raw socket for what
// no client library sends (unframed tokens, requests before authentication).
import * as net from 'node:net';
import { FrameReader } from '../../src/protocol/frame-reader';
import { encodeRequestFrame } from '../../src/protocol/request-frame';
import { API_SPEC_BY_KEY } from '../../src/protocol/messages/registry';
import { Reader } from '../../src/protocol/reader';
import { responseHeaderVersion } from '../../src/protocol/headers';
import { credentialFromPassword, SCRAM_MECHANISM_NAMES } from '../../src/sasl/scram-crypto';
import type { RunningBroker } from '../../src/server/broker';
import type { Logger } from '../../src/logger';
import type { BrokerConfig } from '../../src/server/config';
import type { Storage } from '../../src/storage/storage';
import { startTestBroker } from './helpers';

export interface SaslBroker {
  broker: RunningBroker;
  /** The sasl+tcp:// listener's port. */
  saslPort: number;
  /** The tcp:// listener's port. */
  plainPort: number;
  clock: { ms: number };
}

/** `realClock`: Date.now (real clients re-authenticating on their own); else the settable `clock`. */
export async function startSaslBroker(
  config: Partial<BrokerConfig> = {},
  opts: { realClock?: boolean; logger?: Logger } = {},
): Promise<SaslBroker> {
  const clock = { ms: 1_700_000_000_000 };
  const broker = await startTestBroker('memory://', {
    now: opts.realClock ? Date.now : () => clock.ms,
    ...(opts.logger ? { logger: opts.logger } : {}),
    config: {
      listeners: [
        { host: '127.0.0.1', port: 0, securityProtocol: 'SASL_PLAINTEXT' },
        { host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' },
      ],
      connectionFailedAuthenticationDelayMs: 0,
      // These tests are about logging in; with a sasl+ listener the broker is closed by default
      // (ALLOW_EVERYONE_IF_NO_ACL_FOUND), which sasl-acl.test.ts tests.
      allowEveryoneIfNoAclFound: true,
      ...config,
    },
  });
  return { broker, saslPort: broker.listeners[0]!.port, plainPort: broker.listeners[1]!.port, clock };
}

/** Creates `user` with SCRAM-SHA-256 and -512 credentials for `password`. */
export async function addUser(storage: Storage, user: string, password: string): Promise<void> {
  const creds = [];
  for (const mechanism of SCRAM_MECHANISM_NAMES)
    creds.push({ user, mechanism, ...(await credentialFromPassword(mechanism, password)) });
  storage.alterScramCredentials(creds, []);
}

/** A socket that sends frames and collects what comes back, until the broker closes it. */
export class RawConnection {
  private readonly frames = new FrameReader(64 * 1024 * 1024);
  readonly received: Buffer[] = [];
  closed = false;
  private waiters: (() => void)[] = [];

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (d) => {
      this.received.push(...this.frames.push(d));
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static connect(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => resolve(new RawConnection(s)));
      s.once('error', reject);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** A size-prefixed token (the unframed SASL of SaslHandshake v0). */
  writeToken(token: Buffer): void {
    const size = Buffer.alloc(4);
    size.writeInt32BE(token.length);
    this.socket.write(Buffer.concat([size, token]));
  }

  request(apiKey: number, apiVersion: number, correlationId: number, body: unknown): void {
    this.socket.write(encodeRequestFrame(apiKey, apiVersion, correlationId, 'sasl-test', body));
  }

  /** The next frame, or 'closed' if the broker closed first; gives up after timeoutMs. */
  async next(timeoutMs = 10_000): Promise<Buffer | 'closed'> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length === 0 && !this.closed) {
      if (Date.now() > deadline) throw new Error('no answer and no close within the timeout');
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.received.shift() ?? 'closed';
  }

  /** The next response decoded as `apiKey` v`apiVersion`, or 'closed'. */
  async response(apiKey: number, apiVersion: number): Promise<any> {
    const frame = await this.next();
    if (frame === 'closed') return 'closed';
    const r = new Reader(frame);
    const correlationId = r.int32();
    if (responseHeaderVersion(apiKey, apiVersion) >= 1) r.skipTaggedFields();
    return { correlationId, ...API_SPEC_BY_KEY.get(apiKey)!.decodeResponse(r, apiVersion) };
  }

  close(): void {
    this.socket.destroy();
  }
}
