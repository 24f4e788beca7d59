import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../../src/args';
import { CLIENT_COMMANDS, splitCommandLine } from '../../src/cli/global-flags';

describe('global flags before the command', () => {
  it.each([
    [['--bootstrap-server', 'h:1', 'topic', 'list'], 'topic', ['list', '--bootstrap-server', 'h:1']],
    [['-b', 'h:1', 'topic', 'list'], 'topic', ['list', '-b', 'h:1']],
    [['--bootstrap-server=h:1', 'consume', 't'], 'consume', ['t', '--bootstrap-server=h:1']],
    [['-bh:1', 'group', 'list'], 'group', ['list', '-bh:1']],
    // perf takes its subcommand first: the flag goes after it, with the subcommand's options.
    [['-b', 'h:1', 'perf', 'produce', '--topic', 't'], 'perf', ['produce', '--topic', 't', '-b', 'h:1']],
    // Before a `--`, so it stays an option.
    [['-b', 'h:1', 'produce', 't', '--', '-x'], 'produce', ['t', '-b', 'h:1', '--', '-x']],
    // After the command, untouched: the command's own parser reads it.
    [['topic', 'list', '--bootstrap-server', 'h:1'], 'topic', ['list', '--bootstrap-server', 'h:1']],
    [['-h', 'topic'], 'topic', ['--help']],
  ])('%j', (argv, command, args) => {
    expect(splitCommandLine(argv)).toEqual({ command, args, help: false });
  });

  it('reads help and no command', () => {
    expect(splitCommandLine(['--help'])).toEqual({ command: undefined, args: [], help: true });
    expect(splitCommandLine([])).toEqual({ command: undefined, args: [], help: false });
  });

  it.each([
    [['--bootstrap-server'], /--bootstrap-server needs a value/],
    [['-b', '--help', 'topic'], /-b needs a value/],
    [['--storage', 'memory://', 'serve'], /unknown global option --storage/],
    [['-b', 'h:1', 'serve'], /serve does not connect to a broker, so it takes no -b/],
    [
      ['--bootstrap-server=h:1', 'backup', 'x.db'],
      /backup does not connect to a broker, so it takes no --bootstrap-server/,
    ],
  ])('refuses %j', (argv, message) => {
    expect(() => splitCommandLine(argv)).toThrow(UsageError);
    expect(() => splitCommandLine(argv)).toThrow(message);
  });
});

describe('CLIENT_COMMANDS', () => {
  // The list is kept by hand: a command added later that reads --bootstrap-server must be in it,
  // or `minnow -b HOST:PORT that-command` is refused (acl and quota were, until this test).
  const cliDir = path.join(__dirname, '../../src/cli');
  const main = readFileSync(path.join(cliDir, 'main.ts'), 'utf8');
  // Each entry `name: async () => ...` up to the next one; its module is the last `require('./x')` in it
  // (serve's entry is a block that loads another module first).
  const table = main.slice(main.indexOf('const commands'), main.indexOf('\n};', main.indexOf('const commands')));
  const commands = table
    .split(/^(?= {2}\w+: async \(\) =>)/m)
    .slice(1)
    .map((entry) => ({
      name: /^ {2}(\w+):/.exec(entry)![1]!,
      modules: [...entry.matchAll(/require\('\.\/([\w-]+)'\)/g)],
    }))
    .filter((e) => e.modules.length > 0)
    .map((e) => ({ name: e.name, file: path.join(cliDir, `${e.modules[e.modules.length - 1]![1]}.ts`) }));

  it('finds the commands in main.ts', () => {
    expect(commands.map((c) => c.name)).toEqual(expect.arrayContaining(['serve', 'topic', 'acl', 'quota']));
    expect(commands.every((c) => readdirSync(cliDir).includes(path.basename(c.file)))).toBe(true);
  });

  it('holds exactly the commands whose options include --bootstrap-server', () => {
    // A command's options may be parsed in modules of their own (perf's: perf/options.ts re-exports
    // produce-options.ts, consume-options.ts, e2e-options.ts ...): follow perf/ imports, transitively.
    const sourceWithImports = (file: string, seen = new Set<string>()): string => {
      if (seen.has(file) || !existsSync(file)) return '';
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      const imported = [...text.matchAll(/from '(\.\.\/perf\/[\w/-]+|\.\/[\w-]+)'/g)]
        .filter((m) => m[1]!.startsWith('../perf/') || file.includes(`${path.sep}perf${path.sep}`))
        .map((m) => path.join(path.dirname(file), `${m[1]}.ts`));
      return [text, ...imported.map((f) => sourceWithImports(f, seen))].join('\n');
    };
    const connecting = commands
      .filter((c) => /\b(bootstrapOf|bootstrapFrom)\(/.test(sourceWithImports(c.file)))
      .map((c) => c.name);
    expect([...CLIENT_COMMANDS].sort()).toEqual(connecting.sort());
  });
});
