// SASL for minnow's client: SaslHandshake v1 then SaslAuthenticate, PLAIN or SCRAM-SHA-256/512
// (checking the server's SCRAM signature, so a broker that does not hold the user is noticed).
import { ApiKey } from '../protocol/api-keys';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type { SaslAuthenticateResponse, SaslHandshakeResponse } from '../protocol/messages';
import { plainMessage, ScramClient } from '../sasl/scram-client';
import { isScramMechanism } from '../sasl/scram-crypto';
import { KafkaClientError } from './errors';

/** What authenticate needs of a connection (KafkaConnection; an interface, so this file does not import it). */
interface SaslTransport {
  readonly address: string;
  version(apiKey: number, ourMin: number, ourMax: number): number;
  send<Res>(apiKey: number, apiVersion: number, body: unknown): Promise<Res>;
}

export type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
export const SASL_MECHANISMS: readonly SaslMechanism[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

export interface SaslCredentials {
  mechanism: SaslMechanism;
  username: string;
  password: string;
}

export async function authenticate(conn: SaslTransport, creds: SaslCredentials): Promise<void> {
  const hs = await conn.send<SaslHandshakeResponse>(ApiKey.SaslHandshake, 1, { mechanism: creds.mechanism });
  if (hs.errorCode !== ErrorCode.NONE)
    throw new KafkaClientError(
      `SASL handshake with ${conn.address} failed: ${errorName(hs.errorCode)} (the broker offers ${hs.mechanisms.join(', ') || 'no mechanism'})`,
      hs.errorCode,
    );
  const version = conn.version(ApiKey.SaslAuthenticate, 0, 2);
  const step = async (token: Buffer): Promise<Buffer> => {
    const res = await conn.send<SaslAuthenticateResponse>(ApiKey.SaslAuthenticate, version, { authBytes: token });
    if (res.errorCode !== ErrorCode.NONE)
      throw new KafkaClientError(
        `SASL ${creds.mechanism} authentication as "${creds.username}" failed: ${res.errorMessage ?? errorName(res.errorCode)}`,
        res.errorCode,
      );
    return res.authBytes;
  };
  if (!isScramMechanism(creds.mechanism)) {
    await step(plainMessage(creds.username, creds.password));
    return;
  }
  const scram = new ScramClient(creds.mechanism, creds.username, creds.password);
  const serverFirst = await step(scram.firstMessage());
  const serverFinal = await step(await scram.finalMessage(serverFirst));
  scram.verifyServerFinal(serverFinal);
}
