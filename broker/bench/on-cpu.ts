// Where a broker's CPU goes, from on-CPU samples (Linux perf), by thread and by kind of work.
// `node --cpu-prof` (cpu-profile.ts) samples wall time: on a busy machine a thread preempted right
// after a loopback write (which wakes the client) is charged to writev for as long as the client
// runs, so there writev looked like 24-29 % of the seed load while perf finds 5 % of on-CPU time.
// Use this one for CPU, cpu-profile.ts for latency.
//   node --perf-basic-prof-only-functions <build>/cli/main.js serve ... &
//   perf record -F 999 -g -p <pid> -o perf.data -- sleep 6     (during the load)
//   perf script -i perf.data -F tid,ip,sym,dso | npx tsx bench/on-cpu.ts [REQUESTS_PER_SEC SECONDS [HZ]]
// Prints samples per thread, then the busiest thread's samples by kind and by innermost JS
// function (SQLite excluded: any sample with SQLite on its stack counts as SQLite); given the load's
// requests/s and the recording's length, also µs of CPU per request by stage of the request path.
import { readFileSync } from 'node:fs';

interface Sample {
  tid: string;
  frames: { sym: string; dso: string }[];
}

function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  let cur: Sample | undefined;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    // A sample starts with its thread id alone on a line (perf pads it with spaces); frames follow.
    if (/^\s*\d+\s*$/.test(line)) {
      cur = { tid: line.trim().split(/\s+/)[0]!, frames: [] };
      samples.push(cur);
    } else if (cur) {
      const m = /^\s*\S+\s+(.*)\s+\((.*)\)$/.exec(line);
      cur.frames.push(m ? { sym: m[1]!, dso: m[2]! } : { sym: line.trim(), dso: '?' });
    }
  }
  return samples;
}

/** The kind of work of one sample: SQLite (with its system calls), a socket system call, GC, JS. */
export function kindOf(s: Sample): string {
  const all = s.frames.map((f) => `${f.sym} ${f.dso}`).join(' ');
  const leaf = s.frames[0];
  if (!leaf) return 'unknown';
  if (/sqlite/i.test(all)) return 'SQLite (its code and its system calls)';
  if (leaf.dso.includes('kernel')) {
    const entry = s.frames.find((f) => !f.dso.includes('kernel'));
    const sys = entry ? entry.sym.replace(/\+0x.*/, '') : '';
    if (/writev|__libc_write|___libc_write/.test(sys)) return 'kernel: socket write';
    if (/^read$|__libc_read/.test(sys)) return 'kernel: socket read';
    if (/epoll/.test(sys)) return 'kernel: epoll';
    return 'kernel: other (scheduling, interrupts)';
  }
  if (/Heap|Scaveng|Mark|Sweep|GC/.test(all.slice(0, 400))) return 'GC';
  if (leaf.dso.includes('crc32')) return 'CRC-32C (native)';
  return 'JavaScript, Node and V8 (user space)';
}

function innermostJs(s: Sample): string | undefined {
  const f = s.frames.find((x) => x.sym.startsWith('JS:'));
  return f?.sym.replace(/^JS:[*^~]?/, '').replace(/\S*\/(broker\/bench\/\.build|node_modules)\//, '');
}

/** The first frame outside the kernel of a sample without JavaScript on its stack (libuv, V8, libc). */
function nativeLeaf(s: Sample): string {
  const f = s.frames.find((x) => !x.dso.includes('kernel')) ?? s.frames[0];
  return f ? `${f.sym.replace(/\+0x.*/, '').slice(0, 60)} (${f.dso.split('/').pop()})` : '?';
}

/**
 * The stage of the request path a sample belongs to, by what is on its stack (first match wins):
 * how BENCHMARKS.md's per-request table of the seed load groups the event loop's samples.
 */
const STAGES: [string, RegExp][] = [
  ['SQLite (commit + insert)', /sqlite/i],
  ['produce handler (validation, limits, authz, results)', /JS:\S*handle \S*handlers\/produce\.js/],
  ['append queue flush (excl. SQLite) + promise resolution', /append-queue\.js|processTicksAndRejections/],
  ['response encode', /JS:\S*encode \S*connection\.js/],
  [
    'socket write (stream + syscall)',
    /clearBuffer|writeGeneric|writevGeneric|writeOrBuffer|__GI___writev|__libc_write/,
  ],
  ['request decode', /readProduceRequest/],
  ['frame read (socket read, stream, frame reader)', /onStreamRead|uv__read|OnUvRead/],
  ['timers', /processTimers|listOnTimeout/],
  ['setImmediate callbacks (other)', /processImmediate/],
  ['epoll / loop', /epoll_pwait|uv__io_poll/],
];

function stageOf(s: Sample): string {
  const all = s.frames.map((f) => f.sym).join('\n');
  return STAGES.find(([, re]) => re.test(all))?.[0] ?? 'other';
}

function table(counts: Map<string, number>, total: number, top = 25): string {
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, n]) => `${String(n).padStart(7)} ${((n / total) * 100).toFixed(1).padStart(5)} %  ${k}`)
    .join('\n');
}

function count<T>(xs: T[], key: (x: T) => string | undefined): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) {
    const k = key(x);
    if (k !== undefined) m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

function main(): void {
  const samples = parse(readFileSync(0, 'utf8'));
  const byThread = count(samples, (s) => s.tid);
  const main = [...byThread].sort((a, b) => b[1] - a[1])[0]?.[0];
  const mainSamples = samples.filter((s) => s.tid === main);
  const out = [
    `${samples.length} samples; by thread (the busiest is the event loop):`,
    table(byThread, samples.length, 8),
    `\nevent loop thread ${main}, by kind:`,
    table(count(mainSamples, kindOf), mainSamples.length),
    '\nevent loop thread, outside SQLite, by innermost JavaScript function (with what runs below it):',
    table(
      count(mainSamples, (s) =>
        kindOf(s).startsWith('SQLite') ? undefined : (innermostJs(s) ?? `(native, no JS) ${nativeLeaf(s)}`),
      ),
      mainSamples.length,
    ),
  ];
  // With the load's requests/s and the recording's seconds and frequency: µs of CPU per request.
  const [rps, seconds, hz] = process.argv.slice(2).map(Number);
  if (rps && seconds) {
    const perRequest = (n: number) => ((n / (hz || 999) / seconds / rps) * 1e6).toFixed(1).padStart(6);
    const stages = [...count(mainSamples, stageOf)].sort((a, b) => b[1] - a[1]);
    const other = samples.length - mainSamples.length;
    out.push(
      `\nµs of CPU per request at ${rps} requests/s (${seconds} s at ${hz || 999} Hz):`,
      ...stages.map(([k, n]) => `${perRequest(n)}  ${k}`),
      `${perRequest(other)}  other threads (checkpointer, V8 helpers)`,
      `${perRequest(samples.length)}  total`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

if (require.main === module) main();
