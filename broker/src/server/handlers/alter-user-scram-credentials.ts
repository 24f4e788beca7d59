// AlterUserScramCredentials (key 51): v0. Upserts carry salt, iterations and the SaltedPassword
// the client derived (the password never travels); the broker stores StoredKey and ServerKey from
// it, as Kafka's ScramControlManager does, with its validation and errors: a user altered twice
// in one request DUPLICATE_RESOURCE, an unknown mechanism UNSUPPORTED_SASL_MECHANISM, an empty user
// or iterations outside 4096..16384 UNACCEPTABLE_CREDENTIAL, deleting a credential that is not
// there RESOURCE_NOT_FOUND. The valid changes are stored together in one transaction.
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  AlterUserScramCredentialsRequest,
  AlterUserScramCredentialsResponse,
  AlterUserScramCredentialsResponseAlterUserScramCredentialsResult as Result,
} from '../../protocol/messages';
import {
  credentialFromSaltedPassword,
  SCRAM_MAX_ITERATIONS,
  SCRAM_MIN_ITERATIONS,
  scramMechanismByType,
  ScramMechanismName,
} from '../../sasl/scram-crypto';
import type { Storage, UserScramCredential } from '../../storage/storage';
import { KeyedSerial } from '../../keyed-serial';
import type { ApiHandler } from '../context';
import { mayOnCluster } from './authz';

const CLUSTER_AUTHORIZATION_FAILED_MESSAGE =
  'Cluster authorization failed: altering SCRAM credentials needs ALTER on the cluster.';

interface ApiError {
  errorCode: number;
  errorMessage: string;
}

const TWICE: ApiError = {
  errorCode: ErrorCode.DUPLICATE_RESOURCE,
  errorMessage: 'A user credential cannot be altered twice in the same request',
};

function checkUserAndMechanism(user: string, mechanism: ScramMechanismName | undefined): ApiError | undefined {
  if (user === '') return { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Username must not be empty' };
  if (!mechanism) return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, errorMessage: 'Unknown SCRAM mechanism' };
  return undefined;
}

/**
 * One alteration at a time on this broker: a deletion's existence check and the write it allows
 * must not interleave with another request's write (keyed-serial.ts).
 */
const alterations = new KeyedSerial<Storage>();

export function alterUserScramCredentials(
  storage: Storage,
  req: AlterUserScramCredentialsRequest,
): Promise<AlterUserScramCredentialsResponse> {
  return alterations.run(storage, () => alterNow(storage, req));
}

async function alterNow(
  storage: Storage,
  req: AlterUserScramCredentialsRequest,
): Promise<AlterUserScramCredentialsResponse> {
  const deletions = new Map<string, { user: string; mechanism: ScramMechanismName }>();
  const upserts = new Map<string, UserScramCredential>();
  const errors = new Map<string, ApiError>();
  for (const d of req.deletions) {
    if (errors.has(d.name)) continue;
    if (deletions.delete(d.name)) {
      errors.set(d.name, TWICE);
      continue;
    }
    const mechanism = scramMechanismByType(d.mechanism);
    const error =
      checkUserAndMechanism(d.name, mechanism) ??
      ((await storage.scramCredential(d.name, mechanism!)) === undefined
        ? {
            errorCode: ErrorCode.RESOURCE_NOT_FOUND,
            errorMessage: 'Attempt to delete a user credential that does not exist',
          }
        : undefined);
    if (error) errors.set(d.name, error);
    else deletions.set(d.name, { user: d.name, mechanism: mechanism! });
  }
  for (const u of req.upsertions) {
    if (errors.has(u.name)) continue;
    if (deletions.delete(u.name) || upserts.delete(u.name)) {
      errors.set(u.name, TWICE);
      continue;
    }
    const mechanism = scramMechanismByType(u.mechanism);
    const error =
      checkUserAndMechanism(u.name, mechanism) ??
      (u.iterations < SCRAM_MIN_ITERATIONS
        ? { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too few iterations' }
        : u.iterations > SCRAM_MAX_ITERATIONS
          ? { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too many iterations' }
          : // Kafka takes these as given; an empty one would make a credential nobody can log in with.
            u.salt.length === 0 || u.saltedPassword.length === 0
            ? {
                errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL,
                errorMessage: 'Salt and salted password must not be empty',
              }
            : undefined);
    if (error) errors.set(u.name, error);
    else
      upserts.set(u.name, {
        user: u.name,
        mechanism: mechanism!,
        ...credentialFromSaltedPassword(mechanism!, u.salt, u.iterations, u.saltedPassword),
      });
  }
  await storage.alterScramCredentials([...upserts.values()], [...deletions.values()]);
  const ok = (user: string): Result => ({ user, errorCode: ErrorCode.NONE, errorMessage: null });
  return {
    throttleTimeMs: 0,
    results: [
      ...[...deletions.keys()].map(ok),
      ...[...upserts.keys()].map(ok),
      ...[...errors].map(([user, e]) => ({ user, ...e })),
    ],
  };
}

export const alterUserScramCredentialsHandler: ApiHandler<
  AlterUserScramCredentialsRequest,
  AlterUserScramCredentialsResponse
> = {
  apiKey: ApiKey.AlterUserScramCredentials,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    // KafkaApis: ALTER on the cluster, else every named user gets CLUSTER_AUTHORIZATION_FAILED.
    if (!mayOnCluster(ctx, 'ALTER')) {
      const users = new Set([...req.deletions, ...req.upsertions].map((c) => c.name));
      return {
        throttleTimeMs: 0,
        results: [...users].map((user) => ({
          user,
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          errorMessage: CLUSTER_AUTHORIZATION_FAILED_MESSAGE,
        })),
      };
    }
    return alterUserScramCredentials(ctx.broker.storage, req);
  },
};
