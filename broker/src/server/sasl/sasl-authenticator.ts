// One connection's SASL state on a sasl+tcp:// or sasl+tls:// listener, as Kafka's
// SaslServerAuthenticator keeps it: until authenticated, only ApiVersions, SaslHandshake and then
// SaslAuthenticate (or, after SaslHandshake v0, unframed tokens) are served; anything else closes
// the connection. Failures are answered after a delay that grows with the failures of the same
// address and user (login-throttle.ts), and the connection is closed. KIP-368: with CONNECTIONS_MAX_REAUTH_MS > 0 a session expires; the client
// re-authenticates on the live connection (SaslHandshake + SaslAuthenticate) as the same principal,
// and once expired any other request closes the connection.
// https://cwiki.apache.org/confluence/display/KAFKA/KIP-368%3A+Allow+SASL+Connections+to+Periodically+Re-Authenticate
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { SaslAuthenticateResponse, SaslHandshakeResponse } from '../../protocol/messages';
import { isScramMechanism } from '../../sasl/scram-crypto';
import { principalToString, type Session } from '../session';
import type { LoginThrottle } from './login-throttle';
import { CredentialLookup, PlainServer, SaslMechanismServer, SaslStep, ScramServer } from './mechanism-servers';

/** What every SASL connection of a broker shares. */
export interface SaslServices {
  /** SASL_MECHANISMS: what SaslHandshake offers, in order. */
  mechanisms: readonly string[];
  lookup: CredentialLookup;
  /** CONNECTIONS_MAX_REAUTH_MS; 0: sessions never expire. */
  maxReauthMs: number;
  /** How long each failure waits before its answer; the unauthenticated-connection slots. */
  throttle: LoginThrottle;
  now(): number;
  /** Told of each failure (who, from where, why), never of a password. */
  onFailure?(fields: Record<string, unknown>): void;
}

export type FrameRoute = { route: 'request' } | { route: 'close'; why: string };

const PRE_AUTH_APIS: ReadonlySet<number> = new Set([ApiKey.ApiVersions, ApiKey.SaslHandshake]);

/** Kafka's KafkaApis answer to a SaslAuthenticate outside an exchange. */
export const AUTHENTICATE_OUT_OF_TURN = 'SaslAuthenticate request received after successful authentication';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class SaslAuthenticator {
  private phase: 'handshake' | 'authenticate' | 'authenticated' | 'failed' = 'handshake';
  /** After SaslHandshake v0: the tokens come as bare size-prefixed frames, not SaslAuthenticate. */
  private rawTokens = false;
  private server: SaslMechanismServer | undefined;
  /** The mechanism of the completed authentication (re-authentication must use the same). */
  private authenticatedMechanism: string | undefined;
  private reauthenticating = false;
  private badReauthMessage: string | undefined;
  private expiresAtMs: number | undefined;
  /**
   * The connection holds one of its address's unauthenticated slots (taken by the broker before
   * the connection was made): until it logs in, closes, or its failure's delay is over.
   */
  private holdsSlot = true;
  /** Credentials being checked: a close now leaves the slot to the outcome (a failure keeps it for its delay). */
  private checking = false;
  private connectionClosed = false;

  constructor(
    private readonly session: Session,
    private readonly services: SaslServices,
  ) {}

  /** The connection is to close once the failure response is out. */
  get failed(): boolean {
    return this.phase === 'failed';
  }

  /** After SaslHandshake v0: the next frame is a bare token (Connection hands it to rawToken). */
  get awaitingRawToken(): boolean {
    return this.phase === 'authenticate' && this.rawTokens;
  }

  /** Not logged in yet (re-authentications do not count) and not failed. */
  get awaitingLogin(): boolean {
    return this.holdsSlot && this.phase !== 'failed';
  }

  get authenticated(): boolean {
    return this.phase === 'authenticated';
  }

  /** Whether to serve a request for `apiKey` or close, decided before its body is parsed (as Kafka does). */
  route(apiKey: number, nowMs: number): FrameRoute {
    switch (this.phase) {
      case 'authenticated':
        if (this.expiresAtMs !== undefined && nowMs >= this.expiresAtMs && apiKey !== ApiKey.SaslHandshake)
          return { route: 'close', why: 'SASL session expired (CONNECTIONS_MAX_REAUTH_MS) without re-authentication' };
        return { route: 'request' };
      case 'handshake':
        return PRE_AUTH_APIS.has(apiKey)
          ? { route: 'request' }
          : { route: 'close', why: `API key ${apiKey} before SASL authentication` };
      case 'authenticate':
        // After SaslHandshake v0 Connection hands frames to rawToken (awaitingRawToken) instead.
        if (this.rawTokens) return { route: 'close', why: 'a request where an unframed SASL token was due' };
        return apiKey === ApiKey.SaslAuthenticate
          ? { route: 'request' }
          : { route: 'close', why: `API key ${apiKey} during SASL authentication` };
      case 'failed':
        return { route: 'close', why: 'SASL authentication failed' };
    }
  }

  /** SaslHandshake v0-1; also starts a re-authentication once authenticated. */
  async handshake(mechanism: string, version: number): Promise<SaslHandshakeResponse> {
    const mechanisms = [...this.services.mechanisms];
    if (this.phase === 'authenticated') this.reauthenticating = true;
    else if (this.phase !== 'handshake') return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
    if (!mechanisms.includes(mechanism)) {
      await this.fail({ mechanism, reason: 'unsupported mechanism' });
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    }
    this.badReauthMessage =
      this.reauthenticating && mechanism !== this.authenticatedMechanism
        ? `SASL mechanism '${mechanism}' requested by client is not supported for re-authentication of mechanism '${this.authenticatedMechanism}'`
        : undefined;
    this.server = isScramMechanism(mechanism)
      ? new ScramServer(mechanism, this.services.lookup)
      : new PlainServer(this.services.lookup);
    this.rawTokens = version === 0;
    this.phase = 'authenticate';
    return { errorCode: ErrorCode.NONE, mechanisms };
  }

  /** SaslAuthenticate v0-2. */
  async authenticate(token: Buffer): Promise<SaslAuthenticateResponse> {
    if (this.phase !== 'authenticate')
      return {
        errorCode: ErrorCode.ILLEGAL_SASL_STATE,
        errorMessage: AUTHENTICATE_OUT_OF_TURN,
        authBytes: Buffer.alloc(0),
        sessionLifetimeMs: 0n,
      };
    const result = await this.step(token);
    if (result.ok)
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        authBytes: result.response,
        sessionLifetimeMs: BigInt(result.lifetimeMs),
      };
    return {
      errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED,
      errorMessage: result.message,
      authBytes: Buffer.alloc(0),
      sessionLifetimeMs: 0n,
    };
  }

  /** An unframed token (after SaslHandshake v0): the response token, or null to close (after the delay). */
  async rawToken(token: Buffer): Promise<Buffer | null> {
    const result = await this.step(token);
    return result.ok ? result.response : null;
  }

  private async step(
    token: Buffer,
  ): Promise<{ ok: true; response: Buffer; lifetimeMs: number } | { ok: false; message: string }> {
    const server = this.server!;
    const generic = `Authentication failed during ${this.reauthenticating ? 're-authentication' : 'authentication'} due to invalid credentials with SASL mechanism ${server.mechanism}`;
    if (this.badReauthMessage) return this.failWith(this.badReauthMessage, { reason: 'mechanism changed' });
    this.checking = true;
    let s: SaslStep;
    try {
      s = await server.step(token);
    } catch (err) {
      this.checking = false;
      if (this.connectionClosed) this.releaseSlot();
      throw err;
    }
    this.checking = false;
    if (s.kind === 'failed')
      return this.failWith(s.message ?? generic, {
        user: s.user,
        mechanism: server.mechanism,
        reason: 'invalid credentials',
      });
    if (s.kind === 'continue') {
      if (this.connectionClosed) this.releaseSlot(); // no next step will come
      return { ok: true, response: s.response, lifetimeMs: 0 };
    }
    const principal = { principalType: 'User', name: s.user };
    if (this.reauthenticating && principalToString(principal) !== principalToString(this.session.principal)) {
      const was = this.session.principal;
      return this.failWith(
        `Cannot change principals during re-authentication from ${was.principalType}.${was.name}: ${principal.principalType}.${principal.name}`,
        { user: s.user, reason: 'principal changed' },
      );
    }
    this.session.principal = principal;
    this.services.throttle.succeeded(this.session.clientAddress, s.user);
    this.releaseSlot();
    this.authenticatedMechanism = server.mechanism;
    this.server = undefined;
    this.phase = 'authenticated';
    this.reauthenticating = false;
    const lifetimeMs = this.services.maxReauthMs;
    this.expiresAtMs = lifetimeMs > 0 ? this.services.now() + lifetimeMs : undefined;
    return { ok: true, response: s.response, lifetimeMs };
  }

  /** The connection closed: a slot not held for a failure's delay is given back now. */
  closed(): void {
    this.connectionClosed = true;
    if (this.phase !== 'failed' && !this.checking) this.releaseSlot();
  }

  private releaseSlot(): void {
    if (!this.holdsSlot) return;
    this.holdsSlot = false;
    this.services.throttle.release(this.session.clientAddress);
  }

  private async failWith(
    message: string,
    fields: { user?: string } & Record<string, unknown>,
  ): Promise<{ ok: false; message: string }> {
    await this.fail(fields);
    return { ok: false, message };
  }

  /**
   * Marks the connection failed and waits the failure's delay before the answer goes out; the
   * slot stays taken until then, whether or not the client waits for the answer.
   */
  private async fail(fields: { user?: string } & Record<string, unknown>): Promise<void> {
    this.phase = 'failed';
    this.server = undefined;
    const address = this.session.clientAddress;
    const delayMs = this.services.throttle.failed(address, fields.user ?? '', this.services.now());
    this.services.onFailure?.({ clientAddress: address, ...fields, delayMs });
    if (delayMs > 0) await sleep(delayMs);
    this.releaseSlot();
  }
}
