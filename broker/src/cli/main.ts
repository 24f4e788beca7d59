// The `minnow` command: serve, topic, produce, consume, group, transactions, acl, backup, restore, migrate, perf, quota.
import { UsageError } from '../args';
import { CommandLine, splitCommandLine } from './global-flags';

const USAGE = `usage: minnow <command> [args]

commands:
  serve                         run the broker (minnow serve --help for its settings)
  topic create|list|describe|delete
  produce TOPIC                 stdin lines to a topic
  consume TOPIC                 print a topic's records
  group list|describe|delete|reset-offsets
  transactions list|describe    transactional ids and their state (kafka-transactions.sh's columns)
  quota set|list|delete         client quotas (produce/fetch bytes, request time, connection rate)
  user add|list|delete          SASL/SCRAM users (password from stdin only)
  acl add|list|delete           ACLs, with kafka-acls' flags
  backup DEST.db                consistent copy of a broker's database
  restore BACKUP.db             put a backup in place of the (stopped) broker's database
  migrate sqlite:// postgres:// copy a stopped broker's database into an empty PostgreSQL, verified
  perf produce|consume|e2e      load tool

Client commands take --bootstrap-server HOST:PORT (default localhost:9092; env MINNOW_BOOTSTRAP_SERVER),
before or after the command: minnow -b HOST:PORT topic list.`;

type Command = (argv: string[]) => Promise<number>;

// Loaded on demand, so `minnow serve` does not load the client and the CLI does not load the server.
const commands: Record<string, () => Promise<Command>> = {
  // Lazy requires: `minnow topic list` should not load the broker, SQLite or the codecs.
  /* eslint-disable @typescript-eslint/no-require-imports */
  serve: async () => {
    // Before the server's modules load: it pins the young generation at its size now (young-generation.ts).
    (require('../server/young-generation') as typeof import('../server/young-generation')).keepYoungGenerationSmall();
    return (require('./serve') as typeof import('./serve')).serve;
  },
  topic: async () => (require('./topic') as typeof import('./topic')).topicCommand,
  produce: async () => (require('./produce') as typeof import('./produce')).produceCommand,
  consume: async () => (require('./consume') as typeof import('./consume')).consumeCommand,
  backup: async () => (require('./backup') as typeof import('./backup')).backupCommand,
  restore: async () => (require('./restore') as typeof import('./restore')).restoreCommand,
  migrate: async () => (require('./migrate') as typeof import('./migrate')).migrateCommand,
  group: async () => (require('./group') as typeof import('./group')).groupCommand,
  transactions: async () => (require('./transactions') as typeof import('./transactions')).transactionsCommand,
  user: async () => (require('./user') as typeof import('./user')).userCommand,
  perf: async () => (require('./perf') as typeof import('./perf')).perfCommand,
  quota: async () => (require('./quota') as typeof import('./quota')).quotaCommand,
  acl: async () => (require('./acl') as typeof import('./acl')).aclCommand,
  /* eslint-enable @typescript-eslint/no-require-imports */
};

export async function main(argv: string[]): Promise<void> {
  let line: CommandLine;
  try {
    line = splitCommandLine(argv);
  } catch (err) {
    console.error(`minnow: ${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { command: name, args: rest } = line;
  if (!name || line.help || name === 'help') {
    console.log(USAGE);
    process.exitCode = name || line.help ? 0 : 2;
    return;
  }
  const load = commands[name];
  if (!load) {
    console.error(`minnow: unknown command "${name}"\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  try {
    process.exitCode = await (await load())(rest);
  } catch (err) {
    console.error(`minnow ${name}: ${(err as Error).message}`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  }
}

if (require.main === module) void main(process.argv.slice(2));
