// The server side of each SASL mechanism: PLAIN (RFC 4616) and SCRAM-SHA-256/512 (RFC 5802/7677),
// following Kafka's PlainSaslServer and ScramSaslServer. Credentials come from storage: SCRAM keys
// only, so PLAIN derives the keys from the given password with the stored salt and compares.
//
// Unlike Kafka, an unknown SCRAM user is not refused at the first message: it gets a server-first
// message with a made-up salt and fails at the proof, as a wrong password does, so nobody learns
// from the exchange which users exist.
import { createHmac, randomBytes } from 'node:crypto';
import {
  constantTimeEqual,
  hash,
  hmac,
  passwordMatches,
  SCRAM_DEFAULT_ITERATIONS,
  SCRAM_MECHANISMS,
  SCRAM_MIN_ITERATIONS,
  ScramCredential,
  ScramMechanismName,
  xor,
} from '../../sasl/scram-crypto';
import {
  formatServerFinal,
  formatServerFirst,
  parseClientFinal,
  parseClientFirst,
  ScramFormatError,
} from '../../sasl/scram-messages';
import type { ClientFirstMessage, ServerFirstMessage } from '../../sasl/scram-messages';

export type SaslStep =
  | { kind: 'continue'; response: Buffer }
  | { kind: 'done'; response: Buffer; user: string }
  /**
   * `message` is what the client is told; undefined: the generic "invalid credentials" text.
   * `user`: the user the client claimed, when the exchange got that far (failures are counted per user).
   */
  | { kind: 'failed'; message?: string; user?: string };

export interface SaslMechanismServer {
  readonly mechanism: string;
  step(token: Buffer): Promise<SaslStep>;
}

/** Looks a user's stored credential up (Storage.scramCredential). */
export type CredentialLookup = (
  user: string,
  mechanism: ScramMechanismName,
) => ScramCredential | undefined | Promise<ScramCredential | undefined>;

const AUTHZID_MISMATCH = 'Authentication failed: Client requested an authorization id that is different from username';

/** Kafka's PlainSaslServer messages. */
export const PLAIN_INVALID = 'Authentication failed: Invalid username or password';

/** A per-process secret for the made-up salts of unknown users (stable while the broker runs). */
const FAKE_SALT_KEY = randomBytes(32);

function fakeCredential(mechanism: ScramMechanismName, user: string): ScramCredential {
  const salt = createHmac('sha256', FAKE_SALT_KEY).update(`${mechanism}\0${user}`).digest();
  const keyBytes = SCRAM_MECHANISMS[mechanism].keyBytes;
  // Random keys: no proof can match them.
  return {
    salt,
    iterations: SCRAM_DEFAULT_ITERATIONS,
    storedKey: randomBytes(keyBytes),
    serverKey: randomBytes(keyBytes),
  };
}

export class PlainServer implements SaslMechanismServer {
  readonly mechanism = 'PLAIN';

  constructor(private readonly lookup: CredentialLookup) {}

  async step(token: Buffer): Promise<SaslStep> {
    // message = [authzid] NUL authcid NUL passwd (RFC 4616); Kafka wants exactly three tokens.
    const tokens = token.toString('utf8').split('\0');
    if (tokens.length !== 3)
      return { kind: 'failed', message: `Invalid SASL/PLAIN response: expected 3 tokens, got ${tokens.length}` };
    const [authzid, user, password] = tokens as [string, string, string];
    if (user === '') return { kind: 'failed', message: 'Authentication failed: username not specified' };
    if (password === '') return { kind: 'failed', message: 'Authentication failed: password not specified' };
    // Either SCRAM credential will do; an unknown user costs the same derivation as a known one.
    let found: { mechanism: ScramMechanismName; credential: ScramCredential } | undefined;
    for (const m of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
      const credential = await this.lookup(user, m);
      if (credential) {
        found = { mechanism: m, credential };
        break;
      }
    }
    const mechanism = found?.mechanism ?? 'SCRAM-SHA-256';
    const credential = found?.credential ?? fakeCredential(mechanism, user);
    const ok = (await passwordMatches(mechanism, credential, password)) && found !== undefined;
    if (!ok) return { kind: 'failed', message: PLAIN_INVALID, user };
    if (authzid !== '' && authzid !== user) return { kind: 'failed', message: AUTHZID_MISMATCH, user };
    return { kind: 'done', response: Buffer.alloc(0), user };
  }
}

export interface ScramServerOptions {
  /** The server's part of the nonce; tests pass the RFC's. */
  serverNonce?: () => string;
}

export class ScramServer implements SaslMechanismServer {
  private state: 'first' | 'final' | 'over' = 'first';
  private clientFirst: ClientFirstMessage | undefined;
  private serverFirst: ServerFirstMessage | undefined;
  private credential: ScramCredential | undefined;
  private known = false;

  constructor(
    readonly mechanism: ScramMechanismName,
    private readonly lookup: CredentialLookup,
    private readonly options: ScramServerOptions = {},
  ) {}

  async step(token: Buffer): Promise<SaslStep> {
    try {
      if (this.state === 'first') return await this.first(token.toString('utf8'));
      if (this.state === 'final') return this.final(token.toString('utf8'));
      return { kind: 'failed' };
    } catch (err) {
      this.state = 'over';
      if (err instanceof ScramFormatError) return { kind: 'failed', user: this.clientFirst?.user };
      throw err;
    }
  }

  private async first(text: string): Promise<SaslStep> {
    this.state = 'over';
    const cf = parseClientFirst(text);
    if (cf.authorizationId !== '' && cf.authorizationId !== cf.user)
      return { kind: 'failed', message: AUTHZID_MISMATCH, user: cf.user };
    const stored = await this.lookup(cf.user, this.mechanism);
    // tokenauth=true asks for a delegation token's credential: minnow has no delegation tokens, so
    // such a login goes the way of an unknown user.
    const tokenAuth = cf.extensions.get('tokenauth')?.toLowerCase() === 'true';
    this.known = stored !== undefined && !tokenAuth && stored.iterations >= SCRAM_MIN_ITERATIONS;
    this.credential = this.known ? stored : fakeCredential(this.mechanism, cf.user);
    const serverNonce = this.options.serverNonce?.() ?? randomBytes(24).toString('base64url');
    this.clientFirst = cf;
    this.serverFirst = {
      nonce: cf.nonce + serverNonce,
      salt: this.credential!.salt,
      iterations: this.credential!.iterations,
    };
    this.state = 'final';
    return { kind: 'continue', response: Buffer.from(formatServerFirst(this.serverFirst)) };
  }

  private final(text: string): SaslStep {
    this.state = 'over';
    const cf = this.clientFirst!;
    const sf = this.serverFirst!;
    const credential = this.credential!;
    this.credential = undefined;
    const final = parseClientFinal(text);
    // Kafka checks endsWith, not equality: librdkafka 2.0.2 (kcat 1.7) sends its own nonce again in front
    // of the server's (seen from kcat 1.7 / librdkafka 2.0.2), and signs what it sent.
    const failed: SaslStep = { kind: 'failed', user: cf.user };
    if (!final.nonce.endsWith(sf.nonce)) return failed;
    if (Buffer.from(final.channelBinding, 'base64').toString('latin1') !== cf.gs2Header) return failed;
    const authMessage = `${cf.bare},${formatServerFirst(sf)},${final.withoutProof}`;
    const clientSignature = hmac(this.mechanism, credential.storedKey, authMessage);
    if (final.proof.length !== clientSignature.length) return failed;
    const clientKey = xor(final.proof, clientSignature);
    if (!constantTimeEqual(hash(this.mechanism, clientKey), credential.storedKey) || !this.known) return failed;
    const serverSignature = hmac(this.mechanism, credential.serverKey, authMessage);
    return { kind: 'done', response: Buffer.from(formatServerFinal(serverSignature)), user: cf.user };
  }
}
