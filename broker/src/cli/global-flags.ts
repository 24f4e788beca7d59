// Global flags: `minnow --bootstrap-server H:P topic list` as well as `minnow topic list
// --bootstrap-server H:P` (kcat users put -b first). Flags before the command are moved after
// it, where each command's own parser (args.ts) reads them as it always has.
import { UsageError } from '../args';

/** The commands that connect to a broker, and so take --bootstrap-server/-b. */
export const CLIENT_COMMANDS: ReadonlySet<string> = new Set([
  'topic',
  'produce',
  'consume',
  'group',
  'transactions',
  'perf',
  'user',
  'quota',
  'acl',
]);

export interface CommandLine {
  /** undefined when only flags (or nothing) were given. */
  command: string | undefined;
  /** The command's own arguments, with any global flags given before the command appended. */
  args: string[];
  /** -h/--help before any command. */
  help: boolean;
}

/**
 * Splits `argv` (without node and the script) into the command and its arguments, moving the
 * global flags found before the command to the end of its arguments (before a `--`, if any).
 */
export function splitCommandLine(argv: readonly string[]): CommandLine {
  const globals: string[] = [];
  let help = false;
  let i = 0;
  for (; i < argv.length && argv[i]!.startsWith('-'); i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') help = true;
    else if (arg.startsWith('--bootstrap-server=') || (arg.startsWith('-b') && arg.length > 2)) globals.push(arg);
    else if (arg === '--bootstrap-server' || arg === '-b') {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('-')) throw new UsageError(`${arg} needs a value: HOST:PORT`);
      globals.push(arg, value);
      i++;
    } else
      throw new UsageError(
        `unknown global option ${arg}: before the command only --bootstrap-server/-b HOST:PORT and --help are accepted`,
      );
  }
  const command = argv[i];
  const rest = argv.slice(i + 1);
  if (command === undefined) return { command, args: [], help };
  if (globals.length > 0 && !CLIENT_COMMANDS.has(command))
    throw new UsageError(
      `${command} does not connect to a broker, so it takes no ${globals[0]!.replace(/=.*/, '')} (given before the command)`,
    );
  // `minnow -h topic` is `minnow topic --help`.
  if (help) globals.push('--help');
  const end = rest.indexOf('--');
  const args = end < 0 ? [...rest, ...globals] : [...rest.slice(0, end), ...globals, ...rest.slice(end)];
  return { command, args, help: false };
}
