// `minnow serve` in a child process, as the crash suite and the socket fuzz need it: a broker that
// can be killed with SIGKILL and whose memory (VmRSS/VmHWM of /proc/PID/status) and log lines are
// its own, not the test runner's.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The `minnow` command: under jest, the sources it compiled once for the processes tests start
 * (MINNOW_TEST_BUILD, test/support/child-build.ts: tsx took ~1.5 s more per start); else
 * bin/minnow.js.
 */
export const MINNOW_BIN = process.env.MINNOW_TEST_BUILD
  ? path.join(process.env.MINNOW_TEST_BUILD, 'minnow.js')
  : path.resolve(__dirname, '../../bin/minnow.js');

export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

export interface ChildBrokerOptions {
  storageUrl: string;
  /** Extra environment (settings such as SQLITE_SYNCHRONOUS). */
  env?: NodeJS.ProcessEnv;
  args?: string[];
  /** Listen on this port (a restart keeping its address for clients); default a free one. */
  port?: number;
  startTimeoutMs?: number;
}

export class ChildBroker {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    /** Every JSON log line the broker wrote to stderr so far. */
    readonly lines: LogLine[],
    /** stderr lines that were not JSON (a crash trace, a Node warning). */
    readonly rawLines: string[],
  ) {
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null)
        resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts `minnow serve` on a free 127.0.0.1 port; resolves once it logs that it listens. */
  static start(opts: ChildBrokerOptions): Promise<ChildBroker> {
    const startTimeoutMs = opts.startTimeoutMs ?? 30_000;
    const child = spawn(
      process.execPath,
      [
        // e.g. MINNOW_CHILD_NODE_ARGS=--cpu-prof to profile a bench's broker (NODE_OPTIONS refuses it).
        ...(process.env.MINNOW_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
        MINNOW_BIN,
        'serve',
        '--listener',
        `tcp://127.0.0.1:${opts.port ?? 0}`,
        '--storage',
        opts.storageUrl,
        ...(opts.args ?? []),
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, ...opts.env },
      },
    );
    const lines: LogLine[] = [];
    const rawLines: string[] = [];
    const stderr = () => [...lines.map((l) => JSON.stringify(l)), ...rawLines].join('\n');
    let partial = '';
    let started = false;
    return new Promise<ChildBroker>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`minnow serve did not log "listening" within ${startTimeoutMs} ms; stderr: ${stderr()}`));
      }, startTimeoutMs);
      child.once('exit', (code, signal) => {
        if (started) return;
        clearTimeout(timer);
        reject(
          new Error(
            `minnow serve exited (code ${code}, signal ${signal}) before listening; stderr: ${stderr()}${partial}`,
          ),
        );
      });
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (d: string) => {
        const parts = (partial + d).split('\n');
        partial = parts.pop()!;
        for (const text of parts) {
          if (!text) continue;
          try {
            lines.push(JSON.parse(text) as LogLine);
          } catch {
            rawLines.push(text);
          }
        }
        const listening = started ? undefined : lines.find((l) => l.msg === 'minnow broker listening');
        if (listening) {
          started = true;
          clearTimeout(timer);
          resolve(new ChildBroker(child, Number(/:(\d+)$/.exec(String(listening.listener))![1]), lines, rawLines));
        }
      });
    });
  }

  /** Resident and peak resident memory in KiB, from /proc/PID/status (Linux). */
  memoryKiB(): { rssKiB: number; hwmKiB: number } {
    const status = fs.readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM') };
  }

  /** SIGKILL: no shutdown code runs, as in a crash or the OOM killer. */
  async kill9(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM and wait for the exit; SIGKILL if it takes longer than timeoutMs. */
  async stop(timeoutMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.alive) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const r = await this.exited;
    clearTimeout(timer);
    return r;
  }
}
