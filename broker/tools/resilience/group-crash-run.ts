// kill -9 under Kafka 4's groups (issue 32, "Proof"): a child-process broker on SQLite serving a
// group of Java 4.x members (broker/test/java's CrashMembers, one JVM, a thread per member) that
// consume one topic while a producer writes to it, SIGKILLed at seeded random moments and restarted
// on the same file and port. Either a KIP-848 consumer group (group.protocol=consumer, a commit
// after each poll, each member replaced by a new consumer every 7-22 s so kills land while
// partitions move) or a KIP-932 share group (each record accepted, then commitSync). What the
// members print is held to the rules in group-crash-ledger.ts as it arrives; for consumer groups
// the broker's ConsumerGroupDescribe is read every 100 ms and must never show a partition owned by
// two members. After the last restart the run waits (bounded) until every acknowledged record is
// consumed (or accepted) and, for consumer groups, until the broker's assignment covers every
// partition, each member owning what it was told it owns.
import Database from 'better-sqlite3';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode, errorName } from '../../src/protocol/error-codes';
import type { ConsumerGroupDescribeResponse, ProduceResponse } from '../../src/protocol/messages';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { prng } from '../../src/perf/payload';
import { decodeShareRecords } from '../../src/storage/share-store';
import { spawnJava } from '../../test/support/java-launch';
import { freePort } from '../kafka-oracle/kafka';
import { ChildBroker, LogLine } from './child-broker';
import { GroupCrashLedger, MemberLine } from './group-crash-ledger';

export interface GroupCrashOptions {
  mode: 'consumer' | 'share';
  /** Folder for the database file. */
  dir: string;
  seed: number;
  kills: number;
  /** The Java driver's class path (test/integration/java-driver.ts, driverClasspath('kafka-4')). */
  javaClasspath: string;
  members?: number;
  partitions?: number;
  /** Load time before each kill is drawn from this range (ms). */
  killAfterMs?: [number, number];
  /** After the last restart, how long the members get to consume everything and settle (ms). */
  settleMs?: number;
  log?: (line: string) => void;
}

export interface GroupCrashReport {
  mode: 'consumer' | 'share';
  seed: number;
  kills: number;
  /** Records the producer was acknowledged for. */
  produced: number;
  /** Acknowledged records no member consumed (consumer) or accepted (share) by the end. */
  outstanding: string[];
  /** Broken rules: the ledger's, the broker's describe answers', the end state's. */
  violations: string[];
  counts: GroupCrashLedger['counts'] & { describes: number };
  /** consumer groups: per member, the partitions it owns at the end (as it was told, then as the broker says). */
  finalOwnership?: { clients: Record<string, number[]>; broker: Record<string, number[]> };
  /** The last client errors (commit, acknowledgement, poll). */
  clientErrors: string[];
  brokerErrors: LogLine[];
  story: string[];
}

const TOPIC = 'group-crash';
const GROUP = 'group-crash-group';
// Heartbeats every 500 ms; a member whose leave was lost to a kill is removed after 10 s (its
// partitions wait for that), not Kafka's default 45 s.
const BROKER_ENV = {
  LOG_LEVEL: 'info',
  GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: '500',
  GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS: '500',
  GROUP_CONSUMER_SESSION_TIMEOUT_MS: '10000',
  GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS: '10000',
};
/** groups/share RecordState.ACKNOWLEDGED as stored. */
const ACKNOWLEDGED = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runGroupCrash(opts: GroupCrashOptions): Promise<GroupCrashReport> {
  const log = opts.log ?? (() => {});
  const members = opts.members ?? 3;
  const partitions = opts.partitions ?? 4;
  const [lo, hi] = opts.killAfterMs ?? [1_000, 3_000];
  const rand = prng(opts.seed);
  const port = await freePort();
  const dbFile = path.join(opts.dir, `group-crash-${opts.mode}-${opts.seed}.db`);
  const storageUrl = `sqlite://${dbFile}`;
  const ledger = new GroupCrashLedger(opts.mode);
  const report: GroupCrashReport = {
    mode: opts.mode,
    seed: opts.seed,
    kills: 0,
    produced: 0,
    outstanding: [],
    violations: [],
    counts: { ...ledger.counts, describes: 0 },
    clientErrors: [],
    brokerErrors: [],
    story: [],
  };
  const tell = (line: string) => {
    report.story.push(line);
    log(`group-crash ${opts.mode}: ${line}`);
  };
  const violation = (msg: string) => {
    if (report.violations.length < 50) report.violations.push(msg);
  };

  let broker = await ChildBroker.start({ storageUrl, port, env: BROKER_ENV });
  const brokers = [broker];
  let conn: KafkaConnection | undefined = await KafkaConnection.connect('127.0.0.1', port, { clientId: 'group-crash' });
  let java: ChildProcess | undefined;
  let stopped = false;
  try {
    await createTopic(conn, partitions);
    if (opts.mode === 'share') await shareFromEarliest(conn);
    java = spawnJava({
      classpath: opts.javaClasspath,
      main: 'minnow.javaclient.CrashMembers',
      args: [`127.0.0.1:${port}`, opts.mode, TOPIC, GROUP, String(members)],
    });
    // Every line the members printed, kept with the database for a failed run's autopsy.
    const membersLog = fs.createWriteStream(path.join(opts.dir, `group-crash-${opts.mode}-${opts.seed}.members.jsonl`));
    let javaErr = '';
    let partial = '';
    java.stderr!.on('data', (d) => (javaErr = (javaErr + d).slice(-4000)));
    java.stdout!.setEncoding('utf8');
    java.stdout!.on('data', (d: string) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop()!;
      for (const text of lines) {
        if (!text.startsWith('{')) continue;
        membersLog.write(text + '\n');
        ledger.take(JSON.parse(text) as MemberLine);
      }
    });
    const javaExited = new Promise<number | null>((resolve) => java!.on('close', resolve));

    // The producer: one batch of 1-20 records per partition in turn, acks=-1, reconnecting after a
    // kill; a first batch each, then on once the members consume (the JVM takes seconds to start).
    let producing = true;
    const producer = (async () => {
      let partition = 0;
      let n = 0;
      while (producing) {
        if (n >= partitions && ledger.counts.recs === 0) {
          await sleep(50);
          continue;
        }
        const c = conn;
        if (!c) {
          await sleep(50);
          continue;
        }
        const count = 1 + Math.floor(rand() * 20);
        const records = Array.from({ length: count }, () => ({ value: Buffer.from(`r${n++}`) }));
        try {
          const res: ProduceResponse = await c.send(ApiKey.Produce, c.version(ApiKey.Produce, 3, 9), {
            transactionalId: null,
            acks: -1,
            timeoutMs: 10_000,
            topicData: [
              { name: TOPIC, partitionData: [{ index: partition, records: encodeRecordBatch({ records }) }] },
            ],
          });
          const r = res.responses[0]!.partitionResponses[0]!;
          if (r.errorCode === ErrorCode.NONE) ledger.acknowledgedProduce(partition, Number(r.baseOffset), count);
          else violation(`produce to ${TOPIC}/${partition} answered ${errorName(r.errorCode)}`);
        } catch {
          await sleep(50); // the broker died under the request: not acknowledged
        }
        partition = (partition + 1) % partitions;
        await sleep(20);
      }
    })();

    // The broker's view of a consumer group, every 100 ms: no partition owned by two members.
    let lastDescribed: Record<string, number[]> = {};
    const describer = (async () => {
      if (opts.mode !== 'consumer') return;
      while (!stopped) {
        await sleep(100);
        const c = conn;
        if (!c) continue;
        try {
          const owners = await describeOwners(c);
          report.counts.describes++;
          lastDescribed = owners;
          const seen = new Map<number, string>();
          for (const [memberId, parts] of Object.entries(owners)) {
            for (const p of parts) {
              const other = seen.get(p);
              if (other !== undefined)
                violation(
                  `ConsumerGroupDescribe shows ${TOPIC}/${p} owned by members ${other} and ${memberId} at once`,
                );
              seen.set(p, memberId);
            }
          }
        } catch {
          // the broker is down
        }
      }
    })();

    const killAfter = Array.from({ length: opts.kills }, () => lo + Math.floor(rand() * (hi - lo + 1)));
    // Wait for the members to have consumed something before the first kill.
    const started = Date.now();
    while (ledger.counts.recs === 0 && Date.now() - started < 90_000) await sleep(50);
    if (ledger.counts.recs === 0) throw new Error(`the members consumed nothing in 90 s; java stderr: ${javaErr}`);
    tell(`members consuming after ${Date.now() - started} ms`);
    for (let k = 0; k < opts.kills; k++) {
      await sleep(killAfter[k]!);
      const before = { recs: ledger.counts.recs, produced: ledger.produced.size };
      const dead = conn;
      conn = undefined;
      await broker.kill9();
      dead?.close();
      report.kills++;
      const killedAt = Date.now();
      broker = await ChildBroker.start({ storageUrl, port, env: BROKER_ENV });
      brokers.push(broker);
      conn = await KafkaConnection.connect('127.0.0.1', port, { clientId: 'group-crash' });
      tell(
        `kill ${k + 1} at ${killedAt} after ${killAfter[k]} ms: ${before.produced} records acknowledged, ${before.recs} deliveries, ${ledger.counts.lost} lost / ${ledger.counts.revoked} revoked / ${ledger.counts.assigned} assigned / ${ledger.counts.left} replaced members so far`,
      );
    }
    await sleep(1_000);
    producing = false;
    await producer;
    java.stdin!.write('settle\n'); // consumer members stop being replaced: the group may settle

    // The end: everything acknowledged is consumed, and the ownership settles.
    const settleUntil = Date.now() + (opts.settleMs ?? 45_000);
    const clientsOwn = () =>
      Object.fromEntries([...ledger.owned].map(([m, parts]) => [String(m), [...parts].sort((a, b) => a - b)]));
    const settled = () => {
      if (ledger.outstanding().length > 0) return false;
      if (opts.mode !== 'consumer') return true;
      const fromBroker = Object.values(lastDescribed);
      const fromClients = Object.values(clientsOwn());
      const all = (xs: number[][]) =>
        xs
          .flat()
          .sort((a, b) => a - b)
          .join(',');
      const every = Array.from({ length: partitions }, (_, i) => i).join(',');
      // Each member owns what the broker says some member owns, and together they own every partition.
      const key = (xs: number[][]) =>
        xs
          .map((x) => x.join(','))
          .sort()
          .join('|');
      return all(fromBroker) === every && key(fromBroker) === key(fromClients) && fromBroker.length === members;
    };
    while (!settled() && Date.now() < settleUntil) await sleep(100);
    // Acceptances whose answer was lost to a kill: done if the broker's stored state says so.
    let outstanding = ledger.outstanding(true);
    if (opts.mode === 'share') {
      const done = finishedOnFile(dbFile);
      const before = outstanding.length;
      outstanding = outstanding.filter((k) => !done(k));
      tell(`${before - outstanding.length} records accepted with the answer lost to a kill (done in the stored state)`);
    }
    report.outstanding = outstanding
      .slice(0, 20)
      .map(
        (k) =>
          `${k} (${opts.mode === 'share' ? 'delivery counts' : 'consumed by'} ${JSON.stringify(ledger.deliveries.get(k) ?? [])})`,
      );
    if (opts.mode === 'consumer') {
      report.finalOwnership = { clients: clientsOwn(), broker: lastDescribed };
      if (!settled())
        violation(
          `the assignment did not settle: members think they own ${JSON.stringify(report.finalOwnership.clients)}, the broker says ${JSON.stringify(lastDescribed)}`,
        );
    }
    stopped = true;
    await describer;
    java.stdin!.end('stop\n');
    const killTimer = setTimeout(() => java?.kill('SIGKILL'), 40_000);
    const code = await javaExited;
    clearTimeout(killTimer);
    if (code !== 0) violation(`the members' JVM exited ${code}: ${javaErr.slice(-1500)}`);
    return report;
  } finally {
    stopped = true;
    if (java && java.exitCode === null) java.kill('SIGKILL');
    conn?.close();
    report.produced = ledger.produced.size;
    report.violations.push(...ledger.violations);
    report.counts = { ...ledger.counts, describes: report.counts.describes };
    report.clientErrors = [...ledger.lastErrors];
    report.brokerErrors = brokers.flatMap((b) => b.lines.filter((l) => l.level === 'error'));
    await broker.stop();
  }
}

/**
 * Whether the stored share-partition state (read from the file, read-only, beside the running
 * broker) says a "partition:offset" of the group is done: below the start offset, or acknowledged.
 */
function finishedOnFile(dbFile: string): (k: string) => boolean {
  const db = new Database(dbFile, { readonly: true });
  try {
    const rows = db
      .prepare('SELECT partition, start_offset AS start, records FROM share_partition_state WHERE group_id = ?')
      .all(GROUP) as Array<{ partition: number; start: number; records: string }>;
    const byPartition = new Map(
      rows.map((r) => [r.partition, { start: r.start, records: decodeShareRecords(r.records) }]),
    );
    return (k) => {
      const [p, o] = k.split(':').map(Number) as [number, number];
      const s = byPartition.get(p);
      if (!s) return false;
      return o < s.start || s.records.some((r) => r.offset === o && r.state === ACKNOWLEDGED);
    };
  } finally {
    db.close();
  }
}

async function createTopic(conn: KafkaConnection, partitions: number): Promise<void> {
  const ct = await conn.send(ApiKey.CreateTopics, conn.version(ApiKey.CreateTopics, 2, 7), {
    topics: [{ name: TOPIC, numPartitions: partitions, replicationFactor: -1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  if (ct.topics[0].errorCode !== ErrorCode.NONE)
    throw new Error(`creating ${TOPIC}: ${errorName(ct.topics[0].errorCode)}`);
}

/** share.auto.offset.reset=earliest on the share group (a GROUP config resource, type 32). */
async function shareFromEarliest(conn: KafkaConnection): Promise<void> {
  const res = await conn.send(ApiKey.IncrementalAlterConfigs, conn.version(ApiKey.IncrementalAlterConfigs, 0, 1), {
    resources: [
      {
        resourceType: 32,
        resourceName: GROUP,
        configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }],
      },
    ],
    validateOnly: false,
  });
  const r = res.responses[0]!;
  if (r.errorCode !== ErrorCode.NONE)
    throw new Error(`setting share.auto.offset.reset on ${GROUP}: ${errorName(r.errorCode)} ${r.errorMessage ?? ''}`);
}

/** Per member id, the partitions of TOPIC the broker says it owns. */
async function describeOwners(conn: KafkaConnection): Promise<Record<string, number[]>> {
  const res: ConsumerGroupDescribeResponse = await conn.send(ApiKey.ConsumerGroupDescribe, 0, {
    groupIds: [GROUP],
    includeAuthorizedOperations: false,
  });
  const g = res.groups[0]!;
  if (g.errorCode !== ErrorCode.NONE) return {};
  return Object.fromEntries(
    g.members.map((m) => [
      m.memberId,
      m.assignment.topicPartitions.flatMap((tp) => (tp.topicName === TOPIC ? tp.partitions : [])).sort((a, b) => a - b),
    ]),
  );
}
