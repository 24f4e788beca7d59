// The bootstrap admin (MINNOW_ADMIN_USER + MINNOW_ADMIN_PASSWORD_FILE): created at start, with
// SCRAM-SHA-256 and SCRAM-SHA-512 credentials, when the user has none; an existing user is left as
// it is (its password may have been changed since). The password is read from a file, never from
// the environment or argv, and never logged. Its rights come from SUPER_USERS (the ACL settings).
import { readFileSync } from 'node:fs';
import { credentialFromPassword, SCRAM_MECHANISM_NAMES } from '../../sasl/scram-crypto';
import type { Storage, UserScramCredential } from '../../storage/storage';
import type { Logger } from '../../logger';
import { ConfigError } from '../config';

/** The first line of `path`, which must not be empty. */
export function readPasswordFile(path: string, setting: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${setting}=${JSON.stringify(path)} cannot be read: ${(err as Error).message}`);
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '')
    throw new ConfigError(`${setting}=${JSON.stringify(path)}: its first line (the password) is empty`);
  return password;
}

/** Creates `user` from the password file when it has no SCRAM credential; true if it did. */
export async function ensureBootstrapAdmin(
  storage: Storage,
  user: string,
  passwordFile: string | undefined,
  logger: Logger,
): Promise<boolean> {
  if (passwordFile === undefined) return false;
  const password = readPasswordFile(passwordFile, 'MINNOW_ADMIN_PASSWORD_FILE');
  for (const m of SCRAM_MECHANISM_NAMES) if ((await storage.scramCredential(user, m)) !== undefined) return false;
  const creds: UserScramCredential[] = [];
  for (const mechanism of SCRAM_MECHANISM_NAMES)
    creds.push({ user, mechanism, ...(await credentialFromPassword(mechanism, password)) });
  // Brokers starting together on one database may both get here: each stores a valid credential
  // for the same password (an upsert), so whichever lands last, the admin can log in.
  await storage.alterScramCredentials(creds, []);
  logger.info('created the bootstrap admin user from MINNOW_ADMIN_PASSWORD_FILE', {
    user,
    mechanisms: SCRAM_MECHANISM_NAMES,
  });
  return true;
}
