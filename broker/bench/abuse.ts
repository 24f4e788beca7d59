// `npx tsx bench/abuse.ts` (from broker/): what one abusive client costs the others (issue 29). A
// side producer sends one small acks=1 batch every 5 ms, one request in flight, and its round trips
// are timed: first on a quiet broker, then while another connection keeps doing one abusive thing:
// - gzip bombs: an 80 KB batch of 64 MiB of zeros, stating 1 record and stating 64 records;
// - CreateTopics of 2,000 topics in one request (then DeleteTopics of them);
// - metrics scrapes (GET /metrics) with 1,000 groups x 4 partitions of committed offsets.
// A fresh broker child (`node <build>/cli/main.js serve`) on a fresh SQLite file per run, as
// harness.ts does. The abusive client runs in a process of its own (this file, forked with
// --abuser=N): in the side producer's process, decoding a 2.2 MB CreateTopics answer held the
// producer's own loop ~100 ms and was counted as the broker's. Prints the table and writes
// bench/abuse-last-run.json.
//
// Flags: --runs=N (default 3; every run shown), --seconds=S per pattern (default 6), --main=PATH
// (another build's cli/main.js, for a before/after comparison; its table goes to stdout only),
// --only=TEXT (the patterns whose name contains TEXT, plus the quiet baseline; stdout only).
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { KafkaConnection } from '../src/client/connection';
import { ApiKey } from '../src/protocol/api-keys';
import { crc32c } from '../src/protocol/crc32c';
import {
  ATTRIBUTES,
  BATCH_HEADER_SIZE,
  BATCH_LENGTH,
  CRC,
  LAST_OFFSET_DELTA,
  LOG_OVERHEAD,
  RECORDS_COUNT,
  encodeRecordBatch,
} from '../src/protocol/record-batch';
import { BROKER_DIR, BrokerProcess, buildSources, freePort, log, sleep } from './processes';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const RUNS = arg('runs', 3);
const SECONDS = arg('seconds', 6);
const SIDE_INTERVAL_MS = 5;
const RESULTS_JSON = path.join(BROKER_DIR, 'bench', 'abuse-last-run.json');
const OTHER_MAIN = process.argv.find((a) => a.startsWith('--main='))?.slice('--main='.length);
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);

export interface AbuseRow {
  pattern: string;
  run: number;
  sideRequests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  abusiveRequests: number;
  /** The broker's event loop meanwhile (bench/loop-turns-preload.js): longest hold, wall and CPU. */
  loop?: LoopTurns;
}

/** What loop-turns-preload.js writes. */
interface LoopTurns {
  gaps: number;
  maxWallMs: number;
  maxCpuMs: number;
  cpuOver20Ms: number;
  cpuOver50Ms: number;
  wallOver50Ms: number;
}

type Abuser = (ctx: { port: number; metricsPort: number; stopAt: number }) => Promise<number>;

function bombBatch(count: number): Buffer {
  const compressed = zlib.gzipSync(Buffer.alloc(64 << 20), { level: 9 });
  const header = encodeRecordBatch({ records: [{ value: Buffer.from('x') }] }).subarray(0, BATCH_HEADER_SIZE);
  const b = Buffer.concat([header, compressed]);
  b.writeInt32BE(b.length - LOG_OVERHEAD, BATCH_LENGTH);
  b.writeInt32BE(count, RECORDS_COUNT);
  b.writeInt32BE(count - 1, LAST_OFFSET_DELTA);
  b.writeInt16BE(b.readInt16BE(ATTRIBUTES) | 1, ATTRIBUTES); // gzip
  b.writeUInt32BE(crc32c(b, ATTRIBUTES), CRC);
  return b;
}

const produce = (records: Buffer, topic = 'side') => ({
  transactionalId: null,
  acks: 1,
  timeoutMs: 30_000,
  topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
});

const bombs =
  (count: number): Abuser =>
  async ({ port, stopAt }) => {
    const batch = bombBatch(count);
    const c = await KafkaConnection.connect('127.0.0.1', port, { requestTimeoutMs: 60_000 });
    let n = 0;
    while (Date.now() < stopAt) {
      await c.send(ApiKey.Produce, 9, produce(batch, 'bombed'));
      n++;
    }
    c.close();
    return n;
  };

const createTopics: Abuser = async ({ port, stopAt }) => {
  const c = await KafkaConnection.connect('127.0.0.1', port, { requestTimeoutMs: 120_000 });
  let n = 0;
  for (let round = 0; Date.now() < stopAt; round++) {
    const names = Array.from({ length: 2000 }, (_, i) => `abuse-${round}-${i}`);
    await c.send(ApiKey.CreateTopics, 7, {
      topics: names.map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })),
      timeoutMs: 60_000,
      validateOnly: false,
    });
    await c.send(ApiKey.DeleteTopics, 6, {
      topics: names.map((name) => ({ name, topicId: undefined })),
      timeoutMs: 60_000,
    });
    n += 2;
  }
  c.close();
  return n;
};

const scrapes: Abuser = async ({ port, metricsPort, stopAt }) => {
  const c = await KafkaConnection.connect('127.0.0.1', port);
  await c.send(ApiKey.CreateTopics, 7, {
    topics: [{ name: 'lagged', numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  for (let g = 0; g < 1000; g++) {
    await c.send(ApiKey.OffsetCommit, 2, {
      groupId: `group-${g}`,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      retentionTimeMs: -1n,
      topics: [
        {
          name: 'lagged',
          partitions: [0, 1, 2, 3].map((p) => ({ partitionIndex: p, committedOffset: 0n, committedMetadata: null })),
        },
      ],
    });
  }
  c.close();
  let n = 0;
  while (Date.now() < stopAt) {
    await new Promise<void>((resolve, reject) =>
      http
        .get({ host: '127.0.0.1', port: metricsPort, path: '/metrics' }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject),
    );
    n++;
  }
  return n;
};

const idle: Abuser = async ({ stopAt }) => {
  await sleep(stopAt - Date.now());
  return 0;
};

const PATTERNS: [string, Abuser][] = [
  ['quiet', idle],
  ['gzip bomb stating 1 record', bombs(1)],
  ['gzip bomb stating 64 records', bombs(64)],
  ['CreateTopics + DeleteTopics of 2,000 topics', createTopics],
  ['metrics scrapes, 1,000 groups x 4 partitions', scrapes],
];

type AbuseContext = Parameters<Abuser>[0];

/** A forked process for pattern `index`'s abuser (see the header), once it is loaded. */
async function abuserChild(index: number): Promise<{ run: (ctx: AbuseContext) => Promise<number> }> {
  const child = fork(__filename, [`--abuser=${index}`], { stdio: 'inherit' });
  const messages: unknown[] = [];
  let wake = () => {};
  child.on('message', (m) => {
    messages.push(m);
    wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const next = async (): Promise<unknown> => {
    while (messages.length === 0) {
      const code = await Promise.race([exited, new Promise<'message'>((resolve) => (wake = () => resolve('message')))]);
      if (code !== 'message' && messages.length === 0) throw new Error(`abuser ${index} exited with ${code}`);
    }
    return messages.shift();
  };
  await next(); // 'ready'
  return {
    run: async (ctx) => {
      child.send(ctx);
      const count = Number(await next());
      await exited;
      return count;
    },
  };
}

/** The forked side of abuserChild: says it is ready, runs the abuser it is sent, answers its count. */
function abuserMain(index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    process.once('message', (ctx) => {
      PATTERNS[index]![1](ctx as AbuseContext)
        .then((n) => process.send!(n, () => (process.disconnect(), resolve())))
        .catch(reject);
    });
    process.send!('ready');
  });
}

async function sideProducer(port: number, stopAt: number): Promise<number[]> {
  const c = await KafkaConnection.connect('127.0.0.1', port);
  const batch = encodeRecordBatch({ records: [{ value: Buffer.alloc(100, 97) }] });
  const times: number[] = [];
  while (Date.now() < stopAt) {
    const t0 = performance.now();
    await c.send(ApiKey.Produce, 9, produce(batch));
    times.push(performance.now() - t0);
    await sleep(SIDE_INTERVAL_MS);
  }
  c.close();
  return times;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

async function runPattern(tmp: string, pattern: string, run: number): Promise<AbuseRow> {
  const metricsPort = await freePort();
  const db = path.join(tmp, `abuse-${run}-${PATTERNS.findIndex(([p]) => p === pattern)}.db`);
  const loopOut = `${db}.loop.json`;
  const broker = await BrokerProcess.start(`sqlite://${db}`, {
    extraArgs: ['--metrics-listener', `127.0.0.1:${metricsPort}`],
    main: OTHER_MAIN,
    nodeArgs: ['--require', path.join(__dirname, 'loop-turns-preload.js')],
    env: { MINNOW_LOOP_TURNS_OUT: loopOut },
  });
  let row: Omit<AbuseRow, 'loop'>;
  try {
    const c = await KafkaConnection.connect('127.0.0.1', broker.port);
    for (const name of ['side', 'bombed'])
      await c.send(ApiKey.CreateTopics, 7, {
        topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 30_000,
        validateOnly: false,
      });
    c.close();
    // The scrape pattern sets its groups up first; the side producer starts with the abuse.
    const abuser = await abuserChild(PATTERNS.findIndex(([p]) => p === pattern));
    process.kill(broker.pid, 'SIGUSR2'); // the loop figures count from here
    const setupDone = Date.now();
    const stopAt = setupDone + SECONDS * 1000;
    const [abusive, times] = await Promise.all([
      abuser.run({ port: broker.port, metricsPort, stopAt }),
      sleep(pattern.startsWith('metrics') ? 3000 : 0).then(() => sideProducer(broker.port, stopAt + 3000)),
    ]);
    times.sort((a, b) => a - b);
    row = {
      pattern,
      run,
      sideRequests: times.length,
      p50Ms: quantile(times, 0.5),
      p99Ms: quantile(times, 0.99),
      maxMs: times[times.length - 1] ?? NaN,
      abusiveRequests: abusive,
    };
  } finally {
    await broker.stop();
  }
  return { ...row, loop: existsSync(loopOut) ? (JSON.parse(readFileSync(loopOut, 'utf8')) as LoopTurns) : undefined };
}

export function renderAbuse(rows: AbuseRow[]): string {
  const lines = [
    '| Pattern (another connection, meanwhile) | Run | Side requests | Side p50 ms | Side p99 ms | Side max ms | Abusive requests | Broker loop held max ms (CPU ms) | Holds > 20 ms CPU |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const loop = r.loop ? `${r.loop.maxWallMs.toFixed(0)} (${r.loop.maxCpuMs.toFixed(0)})` : '-';
    lines.push(
      `| ${r.pattern} | ${r.run + 1} | ${r.sideRequests} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.maxMs.toFixed(1)} | ${r.abusiveRequests} | ${loop} | ${r.loop?.cpuOver20Ms ?? '-'} |`,
    );
  }
  return lines.join('\n');
}

/** Every pattern `runs` times (run by run, so a noisy moment shows as one odd run), brokers in `tmp`. */
export async function runAbuse(tmp: string, runs: number): Promise<AbuseRow[]> {
  const rows: AbuseRow[] = [];
  for (let run = 0; run < runs; run++) {
    for (const [pattern] of PATTERNS) {
      if (ONLY !== undefined && pattern !== 'quiet' && !pattern.includes(ONLY)) continue;
      log(`abuse run ${run + 1}/${runs}: ${pattern}`);
      rows.push(await runPattern(tmp, pattern, run));
    }
  }
  return rows;
}

async function main(): Promise<void> {
  if (!OTHER_MAIN) buildSources();
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'minnow-abuse-'));
  let rows: AbuseRow[];
  try {
    rows = await runAbuse(tmp, RUNS);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const md = renderAbuse(rows);
  if (!OTHER_MAIN && ONLY === undefined)
    writeFileSync(RESULTS_JSON, JSON.stringify({ at: new Date().toISOString(), loadavg: os.loadavg(), rows }, null, 2));
  process.stdout.write(`${md}\n`);
}

const ABUSER = process.argv.find((a) => a.startsWith('--abuser='))?.slice('--abuser='.length);

if (require.main === module) {
  (ABUSER === undefined ? main() : abuserMain(Number(ABUSER))).catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
}
