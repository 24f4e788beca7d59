// The client side of SCRAM (RFC 5802), for minnow's own client (the CLI) and tests: first message,
// proof for the server's challenge, and the check of the server's signature (mutual authentication).
import { randomBytes } from 'node:crypto';
import {
  clientKey,
  constantTimeEqual,
  hash,
  hmac,
  saltedPassword,
  SCRAM_MIN_ITERATIONS,
  serverKey,
  xor,
} from './scram-crypto';
import type { ScramMechanismName } from './scram-crypto';
import { formatClientFirst, parseServerFinal, parseServerFirst } from './scram-messages';

export class ScramClient {
  private readonly bare: string;
  private readonly nonce: string;
  private expectedServerSignature: Buffer | undefined;

  constructor(
    readonly mechanism: ScramMechanismName,
    user: string,
    private readonly password: string,
    nonce: string = randomBytes(24).toString('base64url'),
    /** Kafka's SCRAM extensions, e.g. { tokenauth: 'true' } for a delegation token. */
    extensions: Record<string, string> = {},
  ) {
    this.nonce = nonce;
    this.bare = formatClientFirst(user, nonce, extensions).slice('n,,'.length);
  }

  firstMessage(): Buffer {
    return Buffer.from(`n,,${this.bare}`);
  }

  /** The client-final message answering the server-first one. */
  async finalMessage(serverFirstBytes: Buffer): Promise<Buffer> {
    const text = serverFirstBytes.toString('utf8');
    const sf = parseServerFirst(text);
    if (!sf.nonce.startsWith(this.nonce) || sf.nonce.length === this.nonce.length)
      throw new Error('SCRAM: the server nonce does not extend the client nonce');
    if (sf.iterations < SCRAM_MIN_ITERATIONS)
      throw new Error(`SCRAM: the server asks for ${sf.iterations} iterations, fewer than ${SCRAM_MIN_ITERATIONS}`);
    const salted = await saltedPassword(this.mechanism, this.password, sf.salt, sf.iterations);
    const withoutProof = `c=${Buffer.from('n,,').toString('base64')},r=${sf.nonce}`;
    const authMessage = `${this.bare},${text},${withoutProof}`;
    const ck = clientKey(this.mechanism, salted);
    const proof = xor(ck, hmac(this.mechanism, hash(this.mechanism, ck), authMessage));
    this.expectedServerSignature = hmac(this.mechanism, serverKey(this.mechanism, salted), authMessage);
    return Buffer.from(`${withoutProof},p=${proof.toString('base64')}`);
  }

  /** Throws unless the server proved it knows the user's ServerKey. */
  verifyServerFinal(serverFinalBytes: Buffer): void {
    const { signature, error } = parseServerFinal(serverFinalBytes.toString('utf8'));
    if (error !== undefined) throw new Error(`SCRAM: the server refused: ${error}`);
    if (!this.expectedServerSignature || !signature || !constantTimeEqual(signature, this.expectedServerSignature))
      throw new Error('SCRAM: the server signature is wrong (not the server that holds this user)');
  }
}

/** PLAIN's one message (RFC 4616): NUL user NUL password. */
export function plainMessage(user: string, password: string): Buffer {
  return Buffer.from(`\0${user}\0${password}`, 'utf8');
}
