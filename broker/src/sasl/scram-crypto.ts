// SCRAM's key derivation (RFC 5802 section 3, RFC 7677 for SHA-256), as Kafka's ScramFormatter does
// it. Only salt, iterations, StoredKey and ServerKey are ever stored: never the password nor the
// SaltedPassword. PLAIN checks a password by deriving the same keys from the stored salt.
import { createHash, createHmac, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';

/** The SCRAM mechanisms Kafka has, with the type numbers of its admin API (ScramMechanism.java). */
export const SCRAM_MECHANISMS = {
  'SCRAM-SHA-256': { type: 1, hash: 'sha256', keyBytes: 32 },
  'SCRAM-SHA-512': { type: 2, hash: 'sha512', keyBytes: 64 },
} as const;

export type ScramMechanismName = keyof typeof SCRAM_MECHANISMS;

export const SCRAM_MECHANISM_NAMES = Object.keys(SCRAM_MECHANISMS) as ScramMechanismName[];

/** Kafka's ScramMechanism.minIterations (4096 for both); fewer are refused when stored and when used. */
export const SCRAM_MIN_ITERATIONS = 4096;
/** Kafka's ScramControlManager.MAX_ITERATIONS. */
export const SCRAM_MAX_ITERATIONS = 16384;
/** What kafka-configs uses when `iterations=` is not given. */
export const SCRAM_DEFAULT_ITERATIONS = 4096;

export function isScramMechanism(name: string): name is ScramMechanismName {
  return Object.prototype.hasOwnProperty.call(SCRAM_MECHANISMS, name);
}

export function scramMechanismByType(type: number): ScramMechanismName | undefined {
  return SCRAM_MECHANISM_NAMES.find((m) => SCRAM_MECHANISMS[m].type === type);
}

/** What is stored per (user, mechanism). */
export interface ScramCredential {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

export function hmac(mechanism: ScramMechanismName, key: Buffer, data: Buffer | string): Buffer {
  return createHmac(SCRAM_MECHANISMS[mechanism].hash, key).update(data).digest();
}

export function hash(mechanism: ScramMechanismName, data: Buffer): Buffer {
  return createHash(SCRAM_MECHANISMS[mechanism].hash).update(data).digest();
}

/** Hi(password, salt, i) of RFC 5802: PBKDF2 with HMAC of the mechanism's hash. Async: it is the slow part. */
export function saltedPassword(
  mechanism: ScramMechanismName,
  password: string | Buffer,
  salt: Buffer,
  iterations: number,
): Promise<Buffer> {
  const { hash: digest, keyBytes } = SCRAM_MECHANISMS[mechanism];
  return new Promise((resolve, reject) =>
    pbkdf2(password, salt, iterations, keyBytes, digest, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export function clientKey(mechanism: ScramMechanismName, salted: Buffer): Buffer {
  return hmac(mechanism, salted, 'Client Key');
}

export function serverKey(mechanism: ScramMechanismName, salted: Buffer): Buffer {
  return hmac(mechanism, salted, 'Server Key');
}

/** The credential for a SaltedPassword (what AlterUserScramCredentials carries, as Kafka's controller does). */
export function credentialFromSaltedPassword(
  mechanism: ScramMechanismName,
  salt: Buffer,
  iterations: number,
  salted: Buffer,
): ScramCredential {
  return {
    salt,
    iterations,
    storedKey: hash(mechanism, clientKey(mechanism, salted)),
    serverKey: serverKey(mechanism, salted),
  };
}

/** A fresh credential for `password`: a random 32-byte salt. */
export async function credentialFromPassword(
  mechanism: ScramMechanismName,
  password: string,
  iterations = SCRAM_DEFAULT_ITERATIONS,
  salt: Buffer = randomBytes(32),
): Promise<ScramCredential> {
  return credentialFromSaltedPassword(
    mechanism,
    salt,
    iterations,
    await saltedPassword(mechanism, password, salt, iterations),
  );
}

/** Whether `password` is the one `credential` was made from; compares StoredKey in constant time. */
export async function passwordMatches(
  mechanism: ScramMechanismName,
  credential: ScramCredential,
  password: string,
): Promise<boolean> {
  const salted = await saltedPassword(mechanism, password, credential.salt, credential.iterations);
  return constantTimeEqual(hash(mechanism, clientKey(mechanism, salted)), credential.storedKey);
}

export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}
