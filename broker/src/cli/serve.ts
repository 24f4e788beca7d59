// `minnow serve`: runs the broker until SIGTERM/SIGINT, then stops cleanly (exit 0); SIGHUP reloads
// the TLS certificate.
import { parseArgs } from 'node:util';
import { startBroker } from '../server/broker';
import { ConfigError, loadConfig, SETTINGS } from '../server/config';

export function serveUsage(): string {
  const flagWidth = Math.max(...SETTINGS.map((s) => s.flag.length)) + 2;
  const envWidth = Math.max(...SETTINGS.map((s) => s.env.length));
  const rows = SETTINGS.map(
    (s) =>
      `  --${s.flag.padEnd(flagWidth)} ${s.env.padEnd(envWidth)} ${s.doc}${s.default !== undefined ? ` (default ${s.default})` : ''}`,
  );
  return ['usage: minnow serve [flags]', '', 'Each flag overrides its environment variable:', ...rows].join('\n');
}

export async function serve(argv: string[]): Promise<number> {
  const options = Object.fromEntries(SETTINGS.map((s) => [s.flag, { type: 'string' as const }]));
  let flags: Record<string, string | undefined>;
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
    });
    if (parsed.values.help) {
      console.log(serveUsage());
      return 0;
    }
    flags = parsed.values as Record<string, string | undefined>;
  } catch (err) {
    console.error(`minnow serve: ${(err as Error).message}\n\n${serveUsage()}`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(process.env, flags);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`minnow serve: ${err.message}`);
      return 2;
    }
    throw err;
  }
  // Listening for signals before start-up: a SIGTERM that arrives while the broker starts (a
  // supervisor stopping it right away) stops it cleanly once started, rather than killing it.
  let signalled: string | undefined;
  let wake: (() => void) | undefined;
  const onSignal = (signal: string) => {
    signalled = signal;
    wake?.();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  // SIGHUP: read the TLS files again now (a renewed certificate), as nginx and others do. Handled
  // from before start-up too: Node's default for SIGHUP ends the process, and a reload sent while
  // the broker opens its database (systemctl reload, a renewal hook) must not kill it.
  let broker: Awaited<ReturnType<typeof startBroker>> | undefined;
  let hangupPending = false;
  const onHangup = () => {
    if (broker) void broker.reloadTls();
    else hangupPending = true;
  };
  process.on('SIGHUP', onHangup);
  try {
    broker = await startBroker({ config });
  } catch (err) {
    process.off('SIGHUP', onHangup);
    throw err;
  }
  if (hangupPending) void broker.reloadTls();
  if (signalled === undefined) await new Promise<void>((resolve) => (wake = resolve));
  broker.context.logger.info('signal received', { signal: signalled });
  process.off('SIGHUP', onHangup);
  await broker.stop();
  return 0;
}
