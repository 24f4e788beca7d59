// Runs bin/ops.ts's main() in-process against the emulator, as `npm run ops -- ...` would.
import { main } from '../../../bin/ops';
import type { OpsClients, OpsRuntime } from '../../../lib/ops/clients';

/**
 * A runtime whose clock starts at the real time (CloudWatch datapoints are stored against it) and
 * advances only when the command sleeps: polls cost no wall time, and a state that never comes
 * ends at the command's own deadline after a bounded number of requests.
 */
export function emulatorRuntime(): OpsRuntime & { lines: string[] } {
  let t = Date.now();
  const lines: string[] = [];
  return {
    lines,
    now: () => new Date(t),
    sleep: async (ms) => {
      t += ms;
      await new Promise((resolve) => setImmediate(resolve));
    },
    log: (line) => lines.push(line),
  };
}

export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** `contextFile`: where preflight reads and writes the remembered values (cdk.context.json). */
export async function runOps(clients: () => OpsClients, argv: string[], contextFile?: string): Promise<CliResult> {
  const out: string[] = [];
  const runtime = emulatorRuntime();
  const code = await main(argv, {
    clients,
    runtime,
    out: (text) => out.push(text),
    ...(contextFile !== undefined && { contextFile }),
  });
  return { code, out: out.join('\n'), err: runtime.lines.join('\n') };
}
