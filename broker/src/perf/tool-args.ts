// What every `minnow perf` subcommand does with its argv first: Kafka-style arguments fixed up for
// node:util parseArgs (negative numbers, several values after one flag), the options parsed with
// the login flags, --topic required. Pure: throws UsageError.
import { parse, UsageError } from '../args';
import { AUTH_USAGE, connectOptionsOf } from '../client-auth';
import type { SaslCredentials } from '../client/sasl';

/**
 * node:util parseArgs reads "-1" after an option as another option; Kafka's tools take
 * "--throughput -1", so a negative number after a long option is joined to it ("--throughput=-1").
 */
export function joinNegativeValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (/^--[a-z][a-z-]*$/.test(a) && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * "--producer-props a=1 b=2" (kafka-producer-perf-test's form: several values after one flag)
 * becomes "--producer-props=a=1 --producer-props=b=2", which parseArgs reads as a multiple option.
 */
export function expandMultiValue(argv: readonly string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== `--${flag}`) {
      out.push(argv[i]!);
      continue;
    }
    let n = 0;
    while (i + 1 < argv.length && !argv[i + 1]!.startsWith('-')) {
      out.push(`--${flag}=${argv[++i]}`);
      n++;
    }
    if (n === 0) out.push(argv[i]!); // let parseArgs report the missing value
  }
  return out;
}

type OptionsConfig = Parameters<typeof parse>[1];
type OptionValue = string | boolean | string[] | undefined;

/**
 * What every perf subcommand does first: Kafka-style argv fixed up, options parsed (with
 * --topic/-t), no positionals, --topic required. 'help' for --help.
 */
export function parseToolArgs(
  argv: string[],
  options: OptionsConfig,
  usage: string,
  env: NodeJS.ProcessEnv,
):
  | {
      v: Record<string, OptionValue>;
      str: (k: string) => string | undefined;
      topic: string;
      sasl: SaslCredentials | undefined;
    }
  | 'help' {
  const { values, positionals } = parse(
    expandMultiValue(joinNegativeValues(argv), 'producer-props'),
    {
      topic: { type: 'string', short: 't' },
      user: { type: 'string' },
      'password-file': { type: 'string' },
      'sasl-mechanism': { type: 'string' },
      ...options,
    },
    `${usage}\n${AUTH_USAGE}`,
  );
  if (values.help) return 'help';
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\n\n${usage}`);
  const v = values as Record<string, OptionValue>;
  const str = (k: string) => v[k] as string | undefined;
  const topic = str('topic');
  if (!topic) throw new UsageError(`--topic is required\n\n${usage}`);
  // The same login as every other client command (a deployed broker's listeners are sasl+ by default).
  return { v, str, topic, sasl: connectOptionsOf(v, env).sasl };
}
