// A password from a file's first line (client commands' --password-file).
import { readFileSync } from 'node:fs';
import { UsageError } from '../args';

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
