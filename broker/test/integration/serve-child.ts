// `minnow serve` in a child process, for tests that bound the broker's memory (its RSS is read
// from /proc/<pid>/status, not the jest process's) or signal it as an operator would.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { MINNOW_BIN } from '../../tools/resilience/child-broker';

/** The `minnow` command the tests run (the jest run's compiled copy when there is one). */
export const MINNOW = MINNOW_BIN;

export interface ChildBroker {
  port: number;
  pid: number;
  /** Resident set now (VmRSS) and at its peak (VmHWM), in bytes. */
  memory(): { rss: number; hwm: number };
  stderr(): string;
  /** Sends `signal` (SIGTERM by default) and returns the exit code; null if it had to be killed after 15 s. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startChildBroker(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildBroker> {
  const child: ChildProcess = spawn('node', [MINNOW, 'serve', '--listener', 'tcp://127.0.0.1:0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker did not start: ${stderr}`)), 20_000);
    child.stderr!.on('data', (d) => {
      stderr += d;
      const m = /"listener":"127\.0\.0\.1:(\d+)"/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', (code) => reject(new Error(`broker exited with ${code}: ${stderr}`)));
  });
  const kb = (status: string, field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return {
    port,
    pid: child.pid!,
    memory() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return { rss: kb(status, 'VmRSS'), hwm: kb(status, 'VmHWM') };
    },
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export const MiB = 1024 * 1024;
