// One connection's SASL state on a sasl+tcp:// or sasl+tls:// listener, as Kafka's
// SaslServerAuthenticator keeps it: until authenticated, only ApiVersions, SaslHandshake and then
// SaslAuthenticate (or, after SaslHandshake v0, unframed tokens) are served; anything else closes
// the connection. Failures are answered after CONNECTION_FAILED_AUTHENTICATION_DELAY_MS and the
// connection is closed. KIP-368: with CONNECTIONS_MAX_REAUTH_MS > 0 a session expires; the client
// re-authenticates on the live connection (SaslHandshake + SaslAuthenticate) as the same principal,
// and once expired any other request closes the connection.
// https://cwiki.apache.org/confluence/display/KAFKA/KIP-368%3A+Allow+SASL+Connections+to+Periodically+Re-Authenticate
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type { SaslAuthenticateResponse, SaslHandshakeResponse } from '../../protocol/messages';
import { isScramMechanism } from '../../sasl/scram-crypto';
import { principalToString, type Session } from '../session';
import type { AuthFailureLimiter } from './auth-failure-limiter';
import { CredentialLookup, PLAIN_INVALID, PlainServer, SaslMechanismServer, ScramServer } from './mechanism-servers';

/** What every SASL connection of a broker shares. */
export interface SaslServices {
  /** SASL_MECHANISMS: what SaslHandshake offers, in order. */
  mechanisms: readonly string[];
  lookup: CredentialLookup;
  /** CONNECTIONS_MAX_REAUTH_MS; 0: sessions never expire. */
  maxReauthMs: number;
  /** CONNECTION_FAILED_AUTHENTICATION_DELAY_MS. */
  failureDelayMs: number;
  limiter: AuthFailureLimiter;
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
  private blockedAttempt = false;

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
    this.blockedAttempt = this.services.limiter.blocked(this.session.clientAddress, this.services.now());
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
    if (this.blockedAttempt) {
      // Too many failures from this address: refused without looking at the credentials, in the
      // same words as a wrong password.
      return this.failWith(server.mechanism === 'PLAIN' ? PLAIN_INVALID : generic, {
        reason: 'address over its failure limit',
      });
    }
    const s = await server.step(token);
    if (s.kind === 'failed') {
      this.services.limiter.recordFailure(this.session.clientAddress, this.services.now());
      return this.failWith(s.message ?? generic, { mechanism: server.mechanism, reason: 'invalid credentials' });
    }
    if (s.kind === 'continue') return { ok: true, response: s.response, lifetimeMs: 0 };
    const principal = { principalType: 'User', name: s.user };
    if (this.reauthenticating && principalToString(principal) !== principalToString(this.session.principal)) {
      const was = this.session.principal;
      return this.failWith(
        `Cannot change principals during re-authentication from ${was.principalType}.${was.name}: ${principal.principalType}.${principal.name}`,
        { reason: 'principal changed' },
      );
    }
    this.session.principal = principal;
    this.authenticatedMechanism = server.mechanism;
    this.server = undefined;
    this.phase = 'authenticated';
    this.reauthenticating = false;
    const lifetimeMs = this.services.maxReauthMs;
    this.expiresAtMs = lifetimeMs > 0 ? this.services.now() + lifetimeMs : undefined;
    return { ok: true, response: s.response, lifetimeMs };
  }

  private async failWith(message: string, fields: Record<string, unknown>): Promise<{ ok: false; message: string }> {
    await this.fail(fields);
    return { ok: false, message };
  }

  /** Marks the connection failed and waits the failure delay before the answer goes out. */
  private async fail(fields: Record<string, unknown>): Promise<void> {
    this.phase = 'failed';
    this.server = undefined;
    this.services.onFailure?.({ clientAddress: this.session.clientAddress, ...fields });
    if (this.services.failureDelayMs > 0) await sleep(this.services.failureDelayMs);
  }
}
