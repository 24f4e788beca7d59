import { UsageError } from '../../src/args';
import { splitCommandLine } from '../../src/cli/global-flags';

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
