// SASL for client commands and `minnow perf` (a layer of its own, below both): --user NAME with --password-file FILE (or MINNOW_USER and
// MINNOW_PASSWORD_FILE), --sasl-mechanism (MINNOW_SASL_MECHANISM, default SCRAM-SHA-512). The
// password is read from a file, never taken from argv, where any user of the machine could read it.
import type { ConnectOptions } from './client/connection';
import { SASL_MECHANISMS, SaslMechanism } from './client/sasl';
import { readFileSync } from 'node:fs';
import { UsageError } from './args';

export const AUTH_USAGE = `authentication (sasl+ listeners): --user NAME --password-file FILE [--sasl-mechanism PLAIN|SCRAM-SHA-256|SCRAM-SHA-512]
  (env MINNOW_USER, MINNOW_PASSWORD_FILE, MINNOW_SASL_MECHANISM; default mechanism SCRAM-SHA-512)`;

/** The client's SASL settings from flags, else the environment; none when no user is named. */
export function connectOptionsOf(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): ConnectOptions {
  const user = (values.user as string | undefined) ?? env.MINNOW_USER;
  const passwordFile = (values['password-file'] as string | undefined) ?? env.MINNOW_PASSWORD_FILE;
  const mechanism = ((values['sasl-mechanism'] as string | undefined) ?? env.MINNOW_SASL_MECHANISM ?? 'SCRAM-SHA-512')
    .trim()
    .toUpperCase();
  if (user === undefined || user === '') {
    if (passwordFile) throw new UsageError('--password-file (MINNOW_PASSWORD_FILE) needs --user (MINNOW_USER)');
    return {};
  }
  if (!passwordFile) throw new UsageError(`--user ${user} needs --password-file FILE (or MINNOW_PASSWORD_FILE)`);
  if (!SASL_MECHANISMS.includes(mechanism as SaslMechanism))
    throw new UsageError(`--sasl-mechanism ${mechanism}: expected one of ${SASL_MECHANISMS.join(', ')}`);
  return {
    sasl: {
      mechanism: mechanism as SaslMechanism,
      username: user,
      password: readPasswordFile(passwordFile, '--password-file'),
    },
  };
}

/** A password from a file's first line (client commands' --password-file). */
export function readPasswordFile(path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${what} ${path} cannot be read: ${(err as Error).message}`);
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '') throw new UsageError(`${what} ${path}: its first line (the password) is empty`);
  return password;
}
