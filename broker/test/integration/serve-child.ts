// `minnow serve` as a child process, for tests of what happens around the process: start-up
// refusals, signals, kills. Bounded: a broker that does not start within 20 s fails the test.
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

export const MINNOW = path.resolve(__dirname, '../../bin/minnow.js');

export interface ServeChild {
  child: ChildProcess;
  port: number;
  /** Everything written to stderr so far (the JSON log). */
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts `minnow serve` on `db`; resolves once it listens, rejects if it exits or stays silent. */
export function startServeChild(db: string, env: NodeJS.ProcessEnv = {}): Promise<ServeChild> {
  const child = spawn('node', [MINNOW, 'serve', '--listener', 'tcp://127.0.0.1:0', '--storage', `sqlite://${db}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`broker did not start within 20 s: ${stderr}`));
    }, 20_000);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`broker exited with ${code} before listening: ${stderr}`));
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
      const m = /"listener":"127\.0\.0\.1:(\d+)"/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), stderr: () => stderr, exited });
      }
    });
  });
}
