// What `npm run bench:peers` measures (bench/peers-last-run.json) and how BENCHMARKS.md and the
// README show it: one table per scenario, a column per broker, minnow ÷ Kafka ratios. Pure:
// broker/test/perf/peers.test.ts.
import type { CapacityFigures } from './capacity-scenario';
import { codecRows, codecSummaryRows } from './codec-report';
import { bytesPerPayloadByte, DiskUsage } from './disk-usage';
import { int, mb, mbs, ms, pctCore, perByte, ratio, Row, seconds } from './peer-table-format';

export { ratio };

export type PeerId = 'minnow' | 'kafka-default' | 'kafka-small';

export interface PeerInfo {
  id: PeerId;
  /** Column heading, e.g. "Kafka, 1G heap". */
  label: string;
  /** For Kafka: the heap (-Xms = -Xmx). */
  heap?: string;
}

export type ToolName =
  'kafka-producer-perf-test' | 'minnow perf produce' | 'kafka-consumer-perf-test' | 'minnow perf consume';

/** One load tool's run against one broker. Latencies NaN for the consume tools. */
export interface ToolFigures {
  tool: ToolName;
  records: number;
  recordsPerSec: number;
  mbPerSec: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  /** Broker utime+stime over the load window, % of one core. */
  brokerCpuPercent: number;
  /** The load tool's own, over its whole process (a tool near 100 % of a core is the bound, not the broker). */
  toolCpuPercent?: number;
  /** Records the tool could not get acknowledged (or, consuming, did not read). */
  missing: number;
  /** The codec scenario: compression.type of this run. */
  codec?: string;
  /** `minnow perf produce`: batch bytes on the wire per record byte (the codec's ratio on this payload). */
  wirePerRecordByte?: number;
}

/** One scenario on one broker: its tool runs and the broker process's figures. */
export interface PeerScenarioResult {
  peer: PeerId;
  runs: ToolFigures[];
  /** Spawn to the first Metadata answer naming a broker, of the broker these runs used. */
  startupMs: number;
  /** VmRSS 3 s after it first answered. */
  idleRssBytes: number;
  /** The largest VmRSS sampled over the scenario's load windows (VmHWM for produce scenarios). */
  peakRssBytes: number;
  /**
   * RssAnon of the largest sample: heap and buffers, without mapped files. minnow's RSS also counts
   * the pages of the database SQLite has mapped (mmap), which Kafka reads through the page cache
   * instead, outside its RSS.
   */
  peakAnonBytes?: number;
  /** du of the data after the scenario, and the record bytes (keys + values) sent to it. */
  disk?: DiskUsage;
  payloadBytes?: number;
  /** The t3.micro baseline scenario's search (its runs hold the tool's figures at the rate found). */
  capacity?: CapacityFigures;
}

export type ScenarioId = 'seed' | 'capacity' | 'max1k' | 'max100' | 'consume' | 'codecs';

export interface PeerScenario {
  id: ScenarioId;
  title: string;
  /** The load, as both tools were told it. */
  load: string;
  results: PeerScenarioResult[];
}

export interface PeersResults {
  startedAt: string;
  durationS: number;
  quick: boolean;
  machine: { cpu: string; memory: string; os: string; node: string; loadBefore: string; loadAfter: string };
  commit: string;
  kafkaVersion: string;
  java: string;
  peers: PeerInfo[];
  /** Printed with the tables: JVM flags, server.properties, durability. */
  kafkaSettings: string;
  minnowSettings: string;
  scenarios: PeerScenario[];
}

/** Disk bytes per payload byte of one result, NaN when not measured. */
export function diskPerPayload(r: PeerScenarioResult): number {
  return r.disk && r.payloadBytes ? bytesPerPayloadByte(r.disk, r.payloadBytes) : NaN;
}

const runOf = (r: PeerScenarioResult, tool: ToolName) => r.runs.find((x) => x.tool === tool);

function toolRows(tool: ToolName, produce: boolean): Row[] {
  const f = (pick: (t: ToolFigures) => number[]) => (r: PeerScenarioResult) => {
    const t = runOf(r, tool);
    return t ? pick(t) : [NaN];
  };
  const rows: Row[] = [
    {
      label: `${tool}: records/s (MB/s)`,
      value: f((t) => [t.recordsPerSec, t.mbPerSec, t.missing]),
      // A run that lost records (not acknowledged, or not read before --timeout) says so in its cell.
      show: ([rec, mbs, missing]) =>
        Number.isFinite(rec!)
          ? `${int(rec!)} (${mbs!.toFixed(1)})${missing! > 0 ? `, ${int(missing!)} records short` : ''}`
          : '–',
    },
  ];
  if (produce)
    rows.push({
      label: `${tool}: latency p50 / p99 / p99.9 ms`,
      value: f((t) => [t.p50Ms, t.p99Ms, t.p999Ms]),
      show: (xs) => (xs.every((x) => !Number.isFinite(x)) ? '–' : xs.map(ms).join(' / ')),
    });
  rows.push({
    label: `${tool}: the tool's own CPU, % of a core`,
    value: f((t) => [t.toolCpuPercent ?? NaN]),
    show: ([x]) => pctCore(x!),
    noRatio: true,
  });
  rows.push({
    label: `${tool}: broker CPU, % of a core`,
    value: f((t) => [t.brokerCpuPercent]),
    show: ([x]) => pctCore(x!),
  });
  return rows;
}

/** The baseline scenario: the rate found, the figures at it, every rate tried. */
function capacityRows(): Row[] {
  const KPT: ToolName = 'kafka-producer-perf-test';
  const at = (pick: (t: ToolFigures) => number[]) => (r: PeerScenarioResult) => {
    const t = runOf(r, KPT);
    return t ? pick(t) : [NaN];
  };
  return [
    {
      label: 'highest rate with broker CPU within the budget, records/s',
      value: (r) => [r.capacity ? r.capacity.rate || NaN : NaN],
      show: ([x]) => int(x!),
    },
    {
      label: 'broker CPU at that rate, % of a core',
      value: at((t) => [t.brokerCpuPercent]),
      show: ([x]) => pctCore(x!),
    },
    {
      label: `${KPT}: latency p50 / p99 / p99.9 ms at that rate`,
      value: at((t) => [t.p50Ms, t.p99Ms, t.p999Ms]),
      show: (xs) => (xs.every((x) => !Number.isFinite(x)) ? '–' : xs.map(ms).join(' / ')),
    },
    {
      label: 'rates tried: broker CPU (✓ within, ✗ over or not reached)',
      value: (r) =>
        (r.capacity?.steps ?? []).flatMap((x) => [x.rate, x.brokerCpuPercent, x.pass ? 1 : 0, x.achievedRate]),
      show: (xs) => {
        const cells: string[] = [];
        for (let i = 0; i + 3 < xs.length; i += 4) {
          const [rate, cpu, pass, reached] = xs.slice(i, i + 4) as [number, number, number, number];
          // A rate the tool did not reach says so: a busy machine or the tool itself can be the bound.
          const short = reached < 0.97 * rate ? ` (reached ${int(reached)})` : '';
          cells.push(`${int(rate)}: ${pctCore(cpu)} ${pass ? '✓' : '✗'}${short}`);
        }
        return cells.length ? cells.join(', ') : '–';
      },
      noRatio: true,
    },
    { label: 'broker RSS peak', value: (r) => [r.peakRssBytes], show: ([x]) => mb(x!) },
  ];
}

function rowsFor(s: PeerScenario): Row[] {
  if (s.id === 'capacity') return capacityRows();
  if (s.id === 'codecs') return codecRows();
  const produce = s.id !== 'consume';
  const tools: ToolName[] = produce
    ? ['kafka-producer-perf-test', 'minnow perf produce']
    : ['kafka-consumer-perf-test', 'minnow perf consume'];
  const rows = tools.flatMap((t) => toolRows(t, produce));
  rows.push(
    { label: 'broker RSS idle', value: (r) => [r.idleRssBytes], show: ([x]) => mb(x!) },
    { label: 'broker RSS peak', value: (r) => [r.peakRssBytes], show: ([x]) => mb(x!) },
    {
      label: 'of which anonymous (heap, buffers; not mapped files)',
      value: (r) => [r.peakAnonBytes ?? NaN],
      show: ([x]) => mb(x!),
    },
  );
  if (produce)
    rows.push(
      {
        label: 'bytes on disk per payload byte (without the reserve file)',
        value: (r) => [diskPerPayload(r)],
        show: ([x]) => perByte(x!),
      },
      {
        label: "minnow's reserve file, apart",
        value: (r) => [r.disk?.reserveBytes ?? NaN],
        show: ([x]) => mb(x!),
        noRatio: true,
      },
    );
  rows.push({ label: 'start to first answered Metadata', value: (r) => [r.startupMs], show: ([x]) => seconds(x!) });
  return rows;
}

/** One scenario's table: a row per figure, a column per broker, then minnow ÷ each Kafka. */
export function renderScenarioTable(s: PeerScenario, peers: PeerInfo[]): string {
  const present = peers.filter((p) => s.results.some((r) => r.peer === p.id));
  const minnow = s.results.find((r) => r.peer === 'minnow');
  const kafkas = present.filter((p) => p.id !== 'minnow');
  const head = ['', ...present.map((p) => p.label), ...(minnow ? kafkas.map((k) => `minnow ÷ ${k.label}`) : [])];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const row of rowsFor(s)) {
    const cells = present.map((p) => {
      const r = s.results.find((x) => x.peer === p.id)!;
      return row.show(row.value(r));
    });
    const ratios = minnow
      ? kafkas.map((k) => {
          if (row.noRatio) return '';
          const a = row.value(minnow);
          const b = row.value(s.results.find((x) => x.peer === k.id)!);
          // Throughput rows show records/s and MB/s: one ratio (they agree); latencies one each.
          const n = row.label.includes('records/s') ? 1 : a.length;
          return a
            .slice(0, n)
            .map((x, i) => ratio(x, b[i]!))
            .join(' / ');
        })
      : [];
    lines.push(`| ${[row.label, ...cells, ...ratios].join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Marker comments around a generated block. */
export function markers(name: string): { start: string; end: string } {
  return {
    start: `<!-- ${name}:start (generated by \`npm run bench:peers\`; edits here are overwritten) -->`,
    end: `<!-- ${name}:end -->`,
  };
}

/**
 * `current` with the text between the markers replaced by `block`; without the markers, the block
 * appended at the end (`appendIfMissing`) or undefined.
 */
export function replaceMarkedBlock(
  current: string,
  name: string,
  block: string,
  appendIfMissing: boolean,
): string | undefined {
  const { start, end } = markers(name);
  const whole = `${start}\n${block.trim()}\n${end}`;
  const a = current.indexOf(start);
  const b = current.indexOf(end, a);
  if (a >= 0 && b > a) return current.slice(0, a) + whole + current.slice(b + end.length);
  return appendIfMissing ? `${current.trimEnd()}\n\n${whole}\n` : undefined;
}

const scenario = (r: PeersResults, id: ScenarioId) => r.scenarios.find((s) => s.id === id);

/** BENCHMARKS.md's peers section. */
export function renderPeers(r: PeersResults): string {
  const L: string[] = [];
  L.push('## minnow beside Apache Kafka (`npm run bench:peers`)');
  L.push('');
  L.push(
    `Generated by \`npm run bench:peers\` (broker/bench/peers.ts, also the last part of \`npm run bench\`) on ${r.startedAt.slice(0, 10)}, commit ${r.commit}, in ${Math.round(r.durationS)} s${r.quick ? ' (--quick: short runs, not comparable figures)' : ''}.`,
  );
  L.push(
    `Machine: ${r.machine.cpu}, ${r.machine.memory}, ${r.machine.os}, Node ${r.machine.node}, ${r.java}; load average ${r.machine.loadBefore} before, ${r.machine.loadAfter} after. Brokers, tools and bench share these CPUs.`,
  );
  L.push('');
  L.push(
    "Each scenario starts each broker fresh (new SQLite file, new Kafka log dir), then drives it with Kafka's own tool and with `minnow perf`, one after the other, each on its own topic (one partition), acks=all.",
  );
  L.push(
    'Broker CPU is utime+stime of the broker process (the whole JVM for Kafka) from /proc/PID/stat over the load window (the paced seed from 3 s in, past JIT warm-up); RSS is VmRSS (idle: 3 s after the first answer) and the largest sampled over the loads (VmHWM for produce);',
  );
  L.push(
    "disk is du (allocated blocks) of minnow's data folder (the SQLite file; its 16 MiB `.reserve`, kept to recover from a full disk, is shown apart and left out of the ratio) or of Kafka's log.dirs (segments, indexes, the KRaft metadata log) after a clean stop, over the record bytes sent;",
  );
  L.push(
    "start-up is spawn to the first Metadata answer that names a broker (polled every 20-50 ms; Kafka's KRaft storage is formatted before, as kafka-storage format would be).",
  );
  L.push(
    'Latency: kafka-producer-perf-test measures each record from its send() call to the acks=all callback (whole ms); `minnow perf` from the time its rate schedule intended to send it, so its figures include any wait to be sent (no coordinated omission).',
  );
  L.push(
    "A ratio is minnow's figure over Kafka's: above 1 means minnow has more (better for throughput; worse for latency, CPU, memory, disk and start-up).",
  );
  L.push('');
  L.push('**Durability is not the same**, read the latencies with it:');
  L.push('');
  L.push(`- minnow: ${r.minnowSettings}`);
  L.push(`- Kafka: ${r.kafkaSettings.split('\n').pop()}`);
  for (const s of r.scenarios) {
    L.push('');
    L.push(`### ${s.title}`);
    L.push('');
    L.push(s.load);
    L.push('');
    L.push(renderScenarioTable(s, r.peers));
  }
  L.push('');
  L.push('### Settings, to rerun these');
  L.push('');
  for (const line of r.kafkaSettings.split('\n').slice(0, -1)) L.push(`- ${line}`);
  L.push(`- minnow: ${r.minnowSettings}`);
  return L.join('\n');
}

/** The README's short version: the headline figure of each scenario per broker, ratios to Kafka. */
export function renderReadmeSummary(r: PeersResults): string {
  const cols = r.peers;
  const k = cols.filter((p) => p.id !== 'minnow');
  const head = ['', ...cols.map((p) => p.label), ...k.map((p) => `minnow ÷ ${p.label}`)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  const add = (label: string, id: ScenarioId, pick: (x: PeerScenarioResult) => number, show: (n: number) => string) => {
    const s = scenario(r, id);
    if (!s) return;
    const val = (p: PeerInfo) => {
      const x = s.results.find((y) => y.peer === p.id);
      return x ? pick(x) : NaN;
    };
    const m = val(cols.find((p) => p.id === 'minnow') ?? cols[0]!);
    lines.push(`| ${[label, ...cols.map((p) => show(val(p))), ...k.map((p) => ratio(m, val(p)))].join(' | ')} |`);
  };
  const fig = (t: ToolName, f: (x: ToolFigures) => number) => (x: PeerScenarioResult) => {
    const run = runOf(x, t);
    return run ? f(run) : NaN;
  };
  const KPT = 'kafka-producer-perf-test';
  const MINNOW_PERF = 'minnow perf produce';
  // [label, scenario, tool, figure, format]. The maximum runs also by minnow perf: one Java producer
  // thread can be the bound of the Kafka tool.
  const toolRows: [string, ScenarioId, ToolName, (t: ToolFigures) => number, (n: number) => string][] = [
    [`seed p99 ms, ${KPT}`, 'seed', KPT, (t) => t.p99Ms, ms],
    ['seed p99 ms, minnow perf', 'seed', MINNOW_PERF, (t) => t.p99Ms, ms],
    [`seed broker CPU, ${KPT} (% of a core)`, 'seed', KPT, (t) => t.brokerCpuPercent, pctCore],
    [`max produce 1 KiB MB/s, ${KPT}`, 'max1k', KPT, (t) => t.mbPerSec, mbs],
    ['max produce 1 KiB MB/s, minnow perf', 'max1k', MINNOW_PERF, (t) => t.mbPerSec, mbs],
    [`max produce 100 B records/s, ${KPT}`, 'max100', KPT, (t) => t.recordsPerSec, int],
    ['max produce 100 B records/s, minnow perf', 'max100', MINNOW_PERF, (t) => t.recordsPerSec, int],
    ['consume MB/s, kafka-consumer-perf-test', 'consume', 'kafka-consumer-perf-test', (t) => t.mbPerSec, mbs],
  ];
  for (const [label, id, tool, pick, show] of toolRows) add(label, id, fig(tool, pick), show);
  add(
    't3.micro baseline: 1 KiB records/s within 20 % of a core',
    'capacity',
    (x) => (x.capacity ? x.capacity.rate || NaN : NaN),
    int,
  );
  for (const [label, pick] of codecSummaryRows()) add(label, 'codecs', pick, mbs);
  add('broker RSS idle', 'seed', (x) => x.idleRssBytes, mb);
  add('broker RSS peak (seed)', 'seed', (x) => x.peakRssBytes, mb);
  add('disk per payload byte (1 KiB, without the reserve file)', 'max1k', diskPerPayload, perByte);
  add('start to first answer', 'seed', (x) => x.startupMs, seconds);
  return [
    `Beside Apache Kafka ${r.kafkaVersion} on the same machine, in the same run (${r.startedAt.slice(0, 10)}, \`npm run bench:peers\`): each broker driven by Kafka's own kafka-producer-perf-test / kafka-consumer-perf-test and by \`minnow perf\`, acks=all; full tables and the settings to rerun them [below](#minnow-beside-apache-kafka-npm-run-benchpeers). Kafka acknowledges from the page cache, minnow after its SQLite commit (neither fsyncs per message):`,
    '',
    ...lines,
  ].join('\n');
}
