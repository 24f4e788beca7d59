// npm run compat: starts minnow and a real Apache Kafka, sends both the same scripted requests and
// reports every difference in error codes and answer shapes. Exits 1 if a difference is not in
// the allow-list (allow-list.json, explained in docs/compat.md).
//
//   tsx broker/compat/run.ts [--only NAME[,NAME]] [--kafka HOST:PORT] [--engine memory|sqlite]
//                            [--heap 512m] [--kafka-version 4.1.1] [--json FILE] [--verbose]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { startBroker } from '../src/server/broker';
import { silentLogger } from '../src/logger';
import { startKafka, DEFAULT_KAFKA_VERSION } from '../tools/kafka-oracle/kafka';
import { type AllowEntry, allowedBy, compareOutcomes, type Difference, describeValue } from './compare';
import { runScenario, type Scenario, type StepRecord } from './scenario';
import { adminScenarios } from './scenarios/admin';
import { dataScenarios } from './scenarios/data';
import { groupScenarios } from './scenarios/groups';
import { consumerGroupScenarios } from './scenarios/consumer-groups';
import { miscScenarios } from './scenarios/misc';
import { toolScenarios } from './scenarios/tools';
import { transactionScenarios } from './scenarios/transactions';
import { transactionV2Scenarios } from './scenarios/transactions-v2';
import { quotaScenarios } from './scenarios/quotas';
import { shareGroupScenarios } from './scenarios/share-groups';
import { shareDeliveryScenarios } from './scenarios/share-delivery';

// Transactions first: admin's create-topics makes Kafka create __transaction_state as a plain topic,
// after which its transaction coordinator never loads.
export const SCENARIOS: Scenario[] = [
  ...transactionScenarios,
  ...transactionV2Scenarios,
  ...miscScenarios,
  ...adminScenarios,
  ...dataScenarios,
  ...groupScenarios,
  ...consumerGroupScenarios,
  ...shareGroupScenarios,
  ...shareDeliveryScenarios,
  ...toolScenarios,
  ...quotaScenarios, // last: it charges the client id every scenario uses
];

/**
 * minnow always has an authorizer (server/authorizer.ts), open to everyone while no listener
 * authenticates anyone: Kafka is started with its own (KRaft's StandardAuthorizer) set the same way,
 * so the ACL APIs are compared rather than answered SECURITY_DISABLED by a Kafka without one.
 */
export const KAFKA_AUTHORIZER: Record<string, string> = {
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'allow.everyone.if.no.acl.found': 'true',
};

export interface StepReport {
  scenario: string;
  step: string;
  api: string;
  differences: (Difference & { allowed?: string })[];
}

export function compareSteps(
  scenario: string,
  minnow: StepRecord[],
  kafka: StepRecord[],
  allow: readonly AllowEntry[],
): StepReport[] {
  const out: StepReport[] = [];
  const n = Math.max(minnow.length, kafka.length);
  for (let i = 0; i < n; i++) {
    const m = minnow[i];
    const k = kafka[i];
    const step = (m ?? k)!.step;
    const api = `${(m ?? k)!.apiKey}v${(m ?? k)!.apiVersion}`;
    let differences: Difference[];
    if (!m || !k || m.step !== k.step) {
      differences = [
        { path: '(steps)', kind: 'outcome', minnow: m?.step ?? '(no step)', kafka: k?.step ?? '(no step)' },
      ];
    } else {
      differences = compareOutcomes(m.outcome, k.outcome);
    }
    out.push({
      scenario,
      step,
      api,
      differences: differences.map((d) => ({ ...d, allowed: allowedBy(allow, scenario, step, d)?.reason })),
    });
  }
  return out;
}

export function formatReport(reports: StepReport[], verbose: boolean): string {
  const lines: string[] = [];
  let current = '';
  for (const r of reports) {
    const shown = r.differences.filter((d) => verbose || !d.allowed);
    if (shown.length === 0) continue;
    if (r.scenario !== current) {
      current = r.scenario;
      lines.push('', `== ${current}`);
    }
    lines.push(`  ${r.step} (API ${r.api})`);
    // Elements only one side has (ApiVersions keys, configs) are listed on one line per array.
    const grouped = new Map<string, string[]>();
    for (const d of shown) {
      const tag = d.allowed ? ` [allowed: ${d.allowed}]` : '';
      const element = /^(.*)\[(\w+)=([^\]]*)\]$/.exec(d.path);
      if (element && d.kind.startsWith('only-in')) {
        const head = `    ${element[1]}[${element[2]}=…] ${d.kind}${tag}:`;
        if (!grouped.has(head)) {
          grouped.set(head, []);
          lines.push(head);
        }
        grouped.get(head)!.push(element[3]!);
        continue;
      }
      lines.push(
        `    ${d.path || '(body)'} ${d.kind}: minnow ${describeValue(d.path, d.minnow)} | kafka ${describeValue(d.path, d.kafka)}${tag}`,
      );
    }
    for (const [head, ids] of grouped) lines[lines.indexOf(head)] = `${head} ${ids.join(', ')}`;
  }
  return lines.join('\n');
}

function loadAllowList(file: string): AllowEntry[] {
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { allow: AllowEntry[] };
  for (const e of parsed.allow)
    if (!e.scenario || !e.path || !e.reason)
      throw new Error(`${file}: every entry needs scenario, path and reason; got ${JSON.stringify(e)}`);
  return parsed.allow;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      kafka: { type: 'string' },
      engine: { type: 'string', default: 'sqlite' },
      heap: { type: 'string', default: '512m' },
      'kafka-version': { type: 'string', default: DEFAULT_KAFKA_VERSION },
      json: { type: 'string', default: path.join(os.tmpdir(), 'minnow-compat.json') },
      allow: { type: 'string', default: path.join(__dirname, 'allow-list.json') },
      verbose: { type: 'boolean', default: false },
    },
  });
  const only = values.only?.split(',');
  const scenarios = only ? SCENARIOS.filter((s) => only.includes(s.name)) : SCENARIOS;
  if (only && scenarios.length !== only.length) {
    throw new Error(`unknown scenario in --only ${values.only}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  }
  const allow = loadAllowList(values.allow!);
  const say = (line: string) => console.log(`[compat] ${line}`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-compat-'));
  const storageUrl = values.engine === 'memory' ? 'memory://' : `sqlite://${path.join(tmp, 'minnow.db')}`;
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c().catch((err) => say(`cleanup failed: ${(err as Error).message}`));
    cleanups.length = 0;
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  const onSignal = () => void cleanup().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let kafka: { host: string; port: number };
    if (values.kafka) {
      const [host, port] = values.kafka.split(':');
      kafka = { host: host!, port: Number(port) };
      say(`using the Kafka already running at ${values.kafka}`);
    } else {
      const k = await startKafka({
        heap: values.heap,
        kafkaVersion: values['kafka-version'],
        serverProperties: KAFKA_AUTHORIZER,
        log: (l) => say(l),
      });
      cleanups.push(() => k.stop());
      kafka = k;
    }
    // num.partitions is given as the Kafka launcher's properties give it (both report STATIC_BROKER_CONFIG).
    const minnow = await startBroker({
      logger: silentLogger,
      config: {
        listeners: [{ host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }],
        storageUrl,
        numPartitions: 1,
      },
    });
    cleanups.push(() => minnow.stop());
    say(`minnow (${storageUrl}) on 127.0.0.1:${minnow.port}, Kafka on ${kafka.host}:${kafka.port}`);

    const reports: StepReport[] = [];
    for (const s of scenarios) {
      const started = Date.now();
      // A scenario that breaks (a set-up step failing, a wait timing out) is reported, and the run goes on.
      const attempt = async (target: 'minnow' | 'kafka', host: string, port: number): Promise<StepRecord[] | string> =>
        runScenario(s, target, host, port).catch((err: Error) => err.message);
      const m = await attempt('minnow', '127.0.0.1', minnow.port);
      const k = await attempt('kafka', kafka.host, kafka.port);
      const r =
        typeof m === 'string' || typeof k === 'string'
          ? [
              {
                scenario: s.name,
                step: '(whole scenario)',
                api: '-',
                differences: [
                  {
                    path: '(scenario)',
                    kind: 'outcome' as const,
                    minnow: typeof m === 'string' ? `failed: ${m}` : 'ran',
                    kafka: typeof k === 'string' ? `failed: ${k}` : 'ran',
                  },
                ],
              },
            ]
          : compareSteps(s.name, m, k, allow);
      reports.push(...r);
      const all = r.flatMap((x) => x.differences);
      const open = all.filter((d) => !d.allowed).length;
      say(
        `${s.name}: ${r.length} steps, ${all.length} differences (${open} not allowed) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    }

    const all = reports.flatMap((r) => r.differences);
    const open = all.filter((d) => !d.allowed);
    console.log(formatReport(reports, values.verbose!));
    const bigints = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
    fs.writeFileSync(
      values.json!,
      JSON.stringify({ kafkaVersion: values['kafka-version'], storageUrl: values.engine, reports }, bigints, 2),
    );
    console.log('');
    say(
      `${reports.length} steps in ${scenarios.length} scenarios: ${all.length} differences, ${all.length - open.length} allowed, ${open.length} not allowed`,
    );
    say(`JSON report: ${values.json}`);
    return open.length === 0 ? 0 : 1;
  } finally {
    await cleanup();
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      console.error(`[compat] failed: ${(err as Error).stack ?? err}`);
      process.exit(2);
    },
  );
}
