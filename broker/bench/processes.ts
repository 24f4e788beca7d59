// Child processes of the benchmark: brokers (`node <build>/cli/main.js serve`) and the load tool
// (`minnow perf ... --json`), sampled from /proc and killed if the harness exits early.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { freePort } from '../tools/kafka-oracle/kafka';
import { machineBusyPercent, Sampler, systemCpu } from './proc';

export const BROKER_DIR = path.resolve(__dirname, '..');
export const BUILD = path.join(BROKER_DIR, 'bench', '.build');
export const OUT = path.join(BROKER_DIR, 'bench', '.out');
export const MAIN = path.join(BUILD, 'cli', 'main.js');

export const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const children = new Set<number>();
process.on('exit', () => {
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

export { freePort };

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port });
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`broker did not listen on ${port} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class BrokerProcess {
  private exited: Promise<number | null>;
  readonly sampler: Sampler;
  private stderr = '';

  private constructor(
    readonly pid: number,
    readonly port: number,
    readonly storageUrl: string,
    child: ReturnType<typeof spawn>,
  ) {
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    child.stderr!.on('data', (d) => (this.stderr = (this.stderr + d).slice(-4000)));
    child.stdout!.on('data', () => {});
    this.sampler = new Sampler(pid, 200);
  }

  static async start(
    storageUrl: string,
    opts: { cpuProfDir?: string; logLevel?: 'warn' | 'info'; extraArgs?: string[] } = {},
  ): Promise<BrokerProcess> {
    const port = await freePort();
    const nodeArgs = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [];
    const child = spawn(
      process.execPath,
      [
        ...nodeArgs,
        MAIN,
        'serve',
        '--listener',
        `tcp://127.0.0.1:${port}`,
        '--storage',
        storageUrl,
        '--log-level',
        opts.logLevel ?? 'warn',
        ...(opts.extraArgs ?? []),
      ],
      {
        cwd: BROKER_DIR,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_ENV: 'production' },
      },
    );
    children.add(child.pid!);
    const b = new BrokerProcess(child.pid!, port, storageUrl, child);
    await waitForPort(port, 20_000);
    return b;
  }

  /** After stop() of a broker started with logLevel info: its produce commits and requests. */
  get produceStats(): { produceCommits: number; produceRequests: number } | undefined {
    const line = this.stderr.split('\n').find((l) => l.includes('"stopped; database closed"'));
    try {
      const parsed = line ? (JSON.parse(line) as { produceCommits?: number; produceRequests?: number }) : undefined;
      return parsed?.produceCommits === undefined
        ? undefined
        : { produceCommits: parsed.produceCommits, produceRequests: parsed.produceRequests ?? NaN };
    } catch {
      return undefined;
    }
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    this.sampler.stop();
    try {
      process.kill(this.pid, 'SIGTERM');
    } catch {
      // gone
    }
    const code = await Promise.race([this.exited, sleep(30_000).then(() => 'timeout' as const)]);
    if (code === 'timeout') {
      process.kill(this.pid, 'SIGKILL');
      await this.exited;
    }
    children.delete(this.pid);
    if (code !== 0 && code !== 'timeout') log(`broker exited with ${code}: ${this.stderr.slice(-500)}`);
  }
}

export interface ToolRun<S> {
  summary: S;
  stdout: string;
  /** Wall-clock window of the tool process. */
  fromMs: number;
  toMs: number;
  /** The load tool's own CPU (% of one core) and the whole machine's (% of all CPUs) over its run. */
  toolCpuPercent: number;
  machineBusyPercent: number;
}

let jsonCounter = 0;
export async function perf<S>(
  sub: 'produce' | 'consume' | 'e2e',
  args: (string | number)[],
  okCodes = [0],
): Promise<ToolRun<S>> {
  const json = path.join(OUT, `run-${process.pid}-${jsonCounter++}.json`);
  const full = ['perf', sub, ...args.map(String), '--json', json];
  const fromMs = Date.now();
  const child = spawn(process.execPath, [MAIN, ...full], { cwd: BROKER_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child.pid!);
  const toolSampler = new Sampler(child.pid!, 200);
  const sys0 = systemCpu();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  children.delete(child.pid!);
  const toMs = Date.now();
  const sys1 = systemCpu();
  toolSampler.stop();
  const toolCpuPercent = toolSampler.cpuPercent(fromMs, toMs);
  if (!okCodes.includes(code ?? -1) || !existsSync(json))
    throw new Error(`minnow ${full.join(' ')} exited ${code}: ${stderr.slice(-1500)}`);
  const summary = JSON.parse(readFileSync(json, 'utf8')) as S;
  rmSync(json, { force: true });
  if (stderr.trim()) log(`  tool: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return { summary, stdout, fromMs, toMs, toolCpuPercent, machineBusyPercent: machineBusyPercent(sys0, sys1) };
}
