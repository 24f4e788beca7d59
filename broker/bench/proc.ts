// Per-process CPU and memory from /proc (Linux), for the broker child the harness measures.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSec: number | undefined;

/** USER_HZ (clock ticks per second of utime/stime), 100 on practically every Linux. */
export function clockTicks(): number {
  if (ticksPerSec === undefined) {
    try {
      ticksPerSec = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSec = 100;
    }
  }
  return ticksPerSec;
}

/** utime + stime in seconds, from /proc/PID/stat (fields 14 and 15, counted after the ")" of comm). */
export function parseCpuSeconds(stat: string, hz: number): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so utime (14) is fields[11] and stime (15) fields[12].
  return (Number(fields[11]) + Number(fields[12])) / hz;
}

/** A "VmRSS:   12345 kB" line of /proc/PID/status, in bytes. */
export function parseStatusKb(status: string, key: 'VmRSS' | 'VmHWM' | 'RssAnon' | 'RssFile'): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) * 1024 : NaN;
}

export interface ProcSample {
  atMs: number;
  cpuSeconds: number;
  rssBytes: number;
  hwmBytes: number;
  /** Heap, buffers, malloc (RssAnon) vs mapped files: code, shared libraries, the mmap'd database (RssFile). */
  anonBytes: number;
  fileBytes: number;
}

export function sample(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return {
      atMs: Date.now(),
      cpuSeconds: parseCpuSeconds(stat, clockTicks()),
      rssBytes: parseStatusKb(status, 'VmRSS'),
      hwmBytes: parseStatusKb(status, 'VmHWM'),
      anonBytes: parseStatusKb(status, 'RssAnon'),
      fileBytes: parseStatusKb(status, 'RssFile'),
    };
  } catch {
    return undefined; // the process is gone
  }
}

/** Samples a process every `everyMs` until stopped. */
export class Sampler {
  readonly samples: ProcSample[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly pid: number,
    everyMs = 250,
  ) {
    const take = () => {
      const s = sample(pid);
      if (s) this.samples.push(s);
    };
    take();
    this.timer = setInterval(take, everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
    const s = sample(this.pid);
    if (s) this.samples.push(s);
  }

  /** CPU use in % of one core between two wall times (nearest samples inside the window). */
  cpuPercent(fromMs: number, toMs: number): number {
    const inside = this.samples.filter((s) => s.atMs >= fromMs && s.atMs <= toMs);
    if (inside.length < 2) return NaN;
    const a = inside[0]!;
    const b = inside[inside.length - 1]!;
    return ((b.cpuSeconds - a.cpuSeconds) / ((b.atMs - a.atMs) / 1000)) * 100;
  }

  peakRss(): number {
    return Math.max(0, ...this.samples.map((s) => Math.max(s.rssBytes, s.hwmBytes)));
  }

  /** The sample with the largest RSS (for its anon/file split). */
  peakSample(): ProcSample | undefined {
    return this.samples.reduce<ProcSample | undefined>((a, s) => (!a || s.rssBytes > a.rssBytes ? s : a), undefined);
  }
}

/** Whole-machine CPU counters from /proc/stat: busy and total jiffies over all CPUs. */
export function systemCpu(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = (f[3] ?? 0) + (f[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

/** Share of all CPUs busy between two systemCpu() readings, in % of the whole machine. */
export function machineBusyPercent(a: { busy: number; total: number }, b: { busy: number; total: number }): number {
  return ((b.busy - a.busy) / Math.max(1, b.total - a.total)) * 100;
}
