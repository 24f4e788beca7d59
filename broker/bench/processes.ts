// Child processes of the benchmark: brokers (`node <build>/cli/main.js serve`) and the load tool
// (`minnow perf ... --json`), sampled from /proc and killed if the harness exits early.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
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

/** A child the harness did not spawn itself (Kafka's JVM, from the kafka-oracle): killed if the harness exits first. */
export const killOnExit = (pid: number) => children.add(pid);
/** The child has been stopped: nothing to kill at exit. */
export const forgetChild = (pid: number) => children.delete(pid);

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
    /** `main`: another build's cli/main.js (A/B runs, bench/produce-path.bench.ts). */
    opts: {
      cpuProfDir?: string;
      logLevel?: 'warn' | 'info';
      main?: string;
      extraArgs?: string[];
      /** More node flags (bench/loop-turns-preload.js: `--require` it) and environment. */
      nodeArgs?: string[];
      env?: Record<string, string>;
    } = {},
  ): Promise<BrokerProcess> {
    const port = await freePort();
    const nodeArgs = [
      ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : []),
      ...(opts.nodeArgs ?? []),
    ];
    const child = spawn(
      process.execPath,
      [
        ...nodeArgs,
        opts.main ?? MAIN,
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
        env: { ...process.env, NODE_ENV: 'production', ...opts.env },
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
  /** Each whole line the tool prints, as it prints it (its --report-interval progress). */
  onLine?: (line: string) => void,
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
  let shown = 0;
  child.stdout.on('data', (d) => {
    stdout += d;
    if (!onLine) return;
    const end = stdout.lastIndexOf('\n') + 1;
    for (const line of stdout.slice(shown, end).split('\n')) if (line.trim()) onLine(line);
    shown = Math.max(shown, end);
  });
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

/** Builds src/ into bench/.build with tsc (type errors tolerated if it emitted JavaScript). */
export function buildSources(): void {
  log('building src/ into bench/.build (tsc)');
  try {
    execFileSync(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BUILD],
      { cwd: BROKER_DIR, stdio: 'inherit' },
    );
  } catch (err) {
    if (!existsSync(MAIN)) throw err;
    log('tsc reported type errors (someone else is mid-change?); using the JavaScript it emitted');
  }
}

/** Other work on a 2-vCPU machine moves every figure: wait (up to 3 min) for a quieter moment. */
export async function waitForQuietMachine(): Promise<void> {
  for (let waited = 0; os.loadavg()[0]! > 1.5 && waited < 180; waited += 10) {
    if (waited === 0) log(`load average ${os.loadavg()[0]!.toFixed(2)}: waiting up to 3 min for it to drop below 1.5`);
    await sleep(10_000);
  }
}
