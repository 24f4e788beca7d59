// The machine a `npm run bench` ran on, as BENCHMARKS.md reports it: CPU, memory, OS, Node, the
// disk's file system and fsync latency, the load average, the commit measured.
import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Disk state: 100 sequential 8 KiB write+fsync pairs in the temp folder (median and p99 ms). */
export function fsyncProbe(dir: string): string {
  const file = path.join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const page = Buffer.alloc(8192, 7);
  const ms: number[] = [];
  try {
    for (let i = 0; i < 100; i++) {
      const t = performance.now();
      writeSync(fd, page);
      fsyncSync(fd);
      ms.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  ms.sort((a, b) => a - b);
  return `8 KiB write+fsync p50 ${ms[50]!.toFixed(2)} ms, p99 ${ms[99]!.toFixed(2)} ms`;
}

/** `repo`: the checkout whose commit is reported. */
export function machine(tmp: string, repo: string): Record<string, string> {
  const cpus = os.cpus();
  let fs = '?';
  try {
    fs = execFileSync('df', ['-T', tmp], { encoding: 'utf8' }).trim().split('\n').pop()!.split(/\s+/)[1] ?? '?';
  } catch {
    // no df
  }
  let commit = '?';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  } catch {
    // not a checkout
  }
  return {
    date: new Date().toISOString().slice(0, 10),
    cpu: `${cpus[0]?.model.trim() ?? '?'}, ${cpus.length} vCPU`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    disk: `${fs} (${os.tmpdir()})`,
    loadBefore: os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
    loadAfter: '',
    fsyncBefore: fsyncProbe(tmp),
    fsyncAfter: '',
    commit,
  };
}
