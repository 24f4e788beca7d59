// A broker in a child process (`minnow serve`), so a test can watch its files and its memory
// while another process loads it, as users run it.
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

export const MINNOW = path.resolve(__dirname, '../../bin/minnow.js');

export interface ChildBroker {
  child: ChildProcess;
  port: number;
  /** Everything it logged so far. */
  stderr(): string;
  /** SIGTERM, then waits (at most 15 s, then SIGKILL) for its exit code. */
  stop(): Promise<number | null>;
}

export async function startChildBroker(dbPath: string, env: NodeJS.ProcessEnv = {}): Promise<ChildBroker> {
  const child = spawn('node', [MINNOW, 'serve', '--listener', 'tcp://127.0.0.1:0', '--storage', `sqlite://${dbPath}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker did not start within 15 s: ${stderr}`)), 15_000);
    child.stderr!.on('data', (d) => {
      stderr += d;
      const m = /"listener":"127\.0\.0\.1:(\d+)"/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`broker exited (${code}) before listening: ${stderr}`));
    });
  });
  return {
    child,
    port,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
