// `minnow serve` in a child process, as users run it: for tests that signal it or measure its memory
// (the broker's RSS, not the jest process's).
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const MINNOW = path.resolve(__dirname, '../../bin/minnow.js');

export interface ServeChild {
  child: ChildProcess;
  port: number;
  /** Everything the broker logged so far (JSON lines). */
  readonly stderr: string;
  exited: Promise<number | null>;
}

/** Starts `minnow serve` on 127.0.0.1:0 with SQLite at `dbPath` and extra flags; resolves once it listens. */
export async function serveChild(dbPath: string, flags: string[] = []): Promise<ServeChild> {
  const child = spawn('node', [MINNOW, 'serve', '--listener', 'tcp://127.0.0.1:0', '--storage', `sqlite://${dbPath}`, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stderr!.on('data', (d) => (stderr += d));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`broker did not start within 15 s: ${stderr}`)), 15_000);
    const onData = () => {
      const m = /"listener":"127\.0\.0\.1:(\d+)"/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        child.stderr!.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`broker exited with ${code} before listening: ${stderr}`)));
  });
  return {
    child,
    port,
    get stderr() {
      return stderr;
    },
    exited,
  };
}

/** VmRSS and VmHWM (peak) of a process in bytes, from /proc/<pid>/status (Linux). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}
