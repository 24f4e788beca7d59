// Exactly-once across kill -9 (issue 16, "Proof"): a consume-transform-produce loop of kafkajs
// clients (a read_committed group member of topic A, a transactional producer writing each value to
// topic B with the consumed offsets sent in the same transaction, KIP-98) while a child-process
// broker on SQLite is SIGKILLed at random points and restarted on the same file and port. When the
// clients fail, the loop starts a new incarnation as an exactly-once service does: a new producer
// with the same transactional.id first (InitProducerId fences the old one and aborts its open
// transaction), then a new consumer, which resumes at the group's committed offsets. At the end a
// read_committed read of B must hold every value of A exactly once.
import { Consumer, Kafka, logLevel, Producer, Transaction } from 'kafkajs';
import { ChildBroker, LogLine } from './child-broker';
import { prng } from '../../src/perf/payload';

export interface TxnCrashOptions {
  storageUrl: string;
  port: number;
  seed: number;
  kills: number;
  /** Records in A (distinct values), spread over 2 partitions. */
  records: number;
  /** Records per transaction, at most. */
  chunk: number;
  /** Whole-run deadline, ms. */
  deadlineMs: number;
  log?: (line: string) => void;
}

export interface TxnCrashReport {
  kills: number;
  /** Client incarnations (1 + the restarts after a failure). */
  incarnations: number;
  /** Transactions the clients saw committed. */
  commits: number;
  /** Values of A read from B with read_committed: missing, duplicated (value -> count), unexpected. */
  missing: string[];
  duplicated: Record<string, number>;
  unexpected: string[];
  /** Records of B a read_uncommitted reader sees beyond A's (aborted transactions' records). */
  abortedRecords: number;
  /** Why each incarnation ended. */
  incarnationEnds: string[];
  /** The group's committed offsets reached A's end before the deadline. */
  finished: boolean;
  /** Records a read_committed consumer of B delivered live, through the kills (by partition:offset). */
  liveDelivered: number;
  /** Live deliveries the final read_committed read does not hold at that offset (aborted data seen live). */
  liveNotCommitted: string[];
  /** Times the live reader was replaced after kafkajs gave up on it. */
  liveRestarts: number;
  /** Times kafkajs restarted the live reader itself (each time it rejoins as a new member). */
  liveRejoins: number;
  /** How the wait for the live reader to catch up with the committed records of B ended. */
  liveCatchUp: string;
  /** The broker's error log lines over the run. */
  brokerErrors: LogLine[];
}

const A = 'txn-crash-a';
const B = 'txn-crash-b';
const GROUP = 'txn-crash-group';
const TXN_ID = 'txn-crash-processor';
const PARTITIONS = 2;
const BROKER_ENV = { LOG_LEVEL: 'info', GROUP_INITIAL_REBALANCE_DELAY_MS: '0' };
/**
 * The live reader's session timeout. When kafkajs restarts a crashed consumer it joins as a new
 * member; the member it replaces could not leave (the broker was down), so the new one's JoinGroup
 * waits until the old one misses this timeout, counted afresh at every broker start that loads the
 * group (Kafka's coordinator reschedules each member's heartbeat on load too). kafkajs' default is
 * 30 s; 10 s keeps that wait short.
 */
const LIVE_SESSION_TIMEOUT_MS = 10_000;
/** Beyond that session timeout, what the live reader gets to rejoin and read the rest of B. */
const LIVE_CATCH_UP_MARGIN_MS = 30_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with `p`, or with `fallback` after `ms` (a teardown must never hang the run). */
async function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([p.catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runTxnCrash(opts: TxnCrashOptions): Promise<TxnCrashReport> {
  const log = opts.log ?? (() => {});
  const rand = prng(opts.seed);
  const deadline = Date.now() + opts.deadlineMs;
  const brokers = [`127.0.0.1:${opts.port}`];
  const report: TxnCrashReport = {
    kills: 0,
    incarnations: 0,
    commits: 0,
    missing: [],
    duplicated: {},
    unexpected: [],
    abortedRecords: 0,
    incarnationEnds: [],
    finished: false,
    liveDelivered: 0,
    liveNotCommitted: [],
    liveRestarts: 0,
    liveRejoins: 0,
    liveCatchUp: '',
    brokerErrors: [],
  };
  const kafka = (clientId: string) =>
    new Kafka({
      clientId,
      brokers,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 3_000,
      requestTimeout: 10_000,
      retry: { initialRetryTime: 100, maxRetryTime: 1_000, retries: 8 },
    });

  let broker = await ChildBroker.start({ storageUrl: opts.storageUrl, port: opts.port, env: BROKER_ENV });
  const allBrokers = [broker];

  // A: distinct values, written once before the loop (not transactional).
  const values: string[] = [];
  const endOffsets = new Array<number>(PARTITIONS).fill(0);
  {
    const admin = kafka('txn-crash-admin').admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        { topic: A, numPartitions: PARTITIONS },
        { topic: B, numPartitions: PARTITIONS },
      ],
    });
    await admin.disconnect();
    const producer = kafka('txn-crash-fill').producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let i = 0; i < opts.records; i += 200) {
      const batch = Array.from({ length: Math.min(200, opts.records - i) }, (_, j) => `v${i + j}`);
      const partition = (i / 200) % PARTITIONS;
      await producer.send({ topic: A, acks: -1, messages: batch.map((value) => ({ value, partition })) });
      values.push(...batch);
      endOffsets[partition]! += batch.length;
    }
    await producer.disconnect();
  }
  log(`txn-crash: seed ${opts.seed}, ${opts.records} records in ${A}, end offsets ${endOffsets.join(',')}`);

  /** Records whose transaction the client saw committed (progress for the kill schedule). */
  let committedRecords = 0;
  let done = false;

  /** One incarnation of the service; resolves with why it ended. */
  const incarnation = async (n: number): Promise<string> => {
    const k = kafka(`txn-crash-${n}`);
    const producer: Producer = k.producer({
      transactionalId: TXN_ID,
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: 20_000,
    });
    const consumer: Consumer = k.consumer({
      groupId: GROUP,
      readUncommitted: false,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: 200,
      retry: { retries: 3, initialRetryTime: 100, restartOnFailure: async () => false },
    });
    const admin = k.admin();
    let ended: string | undefined;
    const end = (why: string) => (ended ??= why);
    consumer.on(consumer.events.CRASH, (e) => end(`consumer crashed: ${e.payload.error.message}`));
    /** What this incarnation committed, per partition (a rewind below it restarts the incarnation). */
    const committedUpTo = new Array<number>(PARTITIONS).fill(-1);
    try {
      await producer.connect();
      // InitProducerId before the consumer reads its offsets: the previous incarnation is fenced and
      // its open transaction aborted, so nothing of it can commit after we read where to resume.
      let txn: Transaction | undefined = await producer.transaction();
      await consumer.connect();
      await admin.connect();
      await consumer.subscribe({ topic: A, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          const p = batch.partition;
          for (let i = 0; i < batch.messages.length; i += opts.chunk) {
            if (ended || !isRunning() || isStale()) return;
            const chunk = batch.messages.slice(i, i + opts.chunk);
            const first = Number(chunk[0]!.offset);
            const next = Number(chunk[chunk.length - 1]!.offset) + 1;
            if (committedUpTo[p]! > first) {
              // kafkajs does not send OffsetFetch require_stable (KIP-447): after a rejoin it may
              // resume below a transaction this incarnation committed. Start over, fenced first.
              end(`consumer rewound to ${A}/${p}@${first} below the committed ${committedUpTo[p]}`);
              return;
            }
            try {
              txn ??= await producer.transaction();
              await txn.send({ topic: B, acks: -1, messages: chunk.map((m) => ({ value: m.value, partition: p })) });
              await txn.sendOffsets({
                consumerGroupId: GROUP,
                topics: [{ topic: A, partitions: [{ partition: p, offset: String(next) }] }],
              });
              await txn.commit();
            } catch (err) {
              end(`transaction failed: ${(err as Error).message}`);
              return;
            }
            txn = undefined;
            committedUpTo[p] = next;
            committedRecords += chunk.length;
            report.commits++;
            resolveOffset(chunk[chunk.length - 1]!.offset);
            await heartbeat().catch(() => {});
          }
        },
      });
      // Done when the group's committed offsets reach A's end (asked of the broker: a commit whose
      // answer was lost to a kill still counts).
      while (!ended && Date.now() < deadline) {
        await sleep(500);
        const offsets = await admin.fetchOffsets({ groupId: GROUP, topics: [A] }).catch(() => undefined);
        const parts = offsets?.[0]?.partitions ?? [];
        if (parts.length === PARTITIONS && parts.every((x) => Number(x.offset) === endOffsets[x.partition])) {
          done = true;
          end('done');
        }
      }
      return end(`deadline passed`);
    } catch (err) {
      return end(`setup failed: ${(err as Error).message}`);
    } finally {
      await within(consumer.disconnect(), 5_000, undefined);
      await within(producer.disconnect(), 5_000, undefined);
      await within(admin.disconnect(), 5_000, undefined);
    }
  };

  // The kills: each when the committed records pass the next threshold (and the loop has
  // committed again since the last restart), plus 0-60 ms to land in the middle of a transaction;
  // the broker comes back on the same file and port.
  const killer = (async () => {
    let sinceRestart = 0;
    for (let k = 1; k <= opts.kills; k++) {
      const spread = Math.floor((opts.records * k) / (opts.kills + 2) + (rand() - 0.5) * opts.chunk * 2);
      const threshold = Math.max(spread, sinceRestart + opts.chunk);
      while (committedRecords < threshold && !done && Date.now() < deadline) await sleep(5);
      if (done || Date.now() >= deadline) return;
      await sleep(Math.floor(rand() * 60));
      if (committedRecords >= opts.records) return; // not mid-stream any more: the report shows fewer kills
      await broker.kill9();
      report.kills++;
      log(`txn-crash: kill ${k} after ${committedRecords} records committed`);
      broker = await ChildBroker.start({ storageUrl: opts.storageUrl, port: opts.port, env: BROKER_ENV });
      allBrokers.push(broker);
      sinceRestart = committedRecords;
    }
  })();

  // A read_committed consumer of B the whole time, through the kills: what it delivers live must be
  // what the final read_committed holds at that offset, never an aborted record. It is
  // at-least-once (a redelivery at the same offset is fine); when kafkajs gives up on it (a crash
  // it does not restart from, such as "Failed to find group coordinator" while the broker is down),
  // a new one takes over from the group's offsets.
  const live = new Map<string, string>();
  let liveConsumer: Consumer | undefined;
  let liveStopped = false;
  const startLive = async (): Promise<void> => {
    const consumer = kafka('txn-crash-live').consumer({
      groupId: 'txn-crash-live',
      readUncommitted: false,
      maxWaitTimeInMs: 200,
      sessionTimeout: LIVE_SESSION_TIMEOUT_MS,
      heartbeatInterval: 1_000,
    });
    liveConsumer = consumer;
    consumer.on(consumer.events.CRASH, (e) => {
      if (liveStopped) return;
      if (e.payload.restart) {
        report.liveRejoins++;
        return;
      }
      report.liveRestarts++;
      void within(consumer.disconnect(), 5_000, undefined)
        .then(() => sleep(200))
        .then(() => (liveStopped ? undefined : startLive()));
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: B, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          live.set(`${partition}:${message.offset}`, String(message.value));
        },
      });
    } catch {
      if (liveStopped) return;
      report.liveRestarts++;
      await within(consumer.disconnect(), 5_000, undefined);
      await sleep(200);
      if (!liveStopped) await startLive();
    }
  };
  const liveStarted = startLive();

  try {
    while (!done && Date.now() < deadline) {
      report.incarnations++;
      const why = await incarnation(report.incarnations);
      report.incarnationEnds.push(why);
      log(`txn-crash: incarnation ${report.incarnations} ended: ${why} (${committedRecords} records committed)`);
      if (!done) await sleep(200);
    }
    await killer;
    report.finished = done;

    // The proof: B read with read_committed holds each value of A once.
    const readB = async (readUncommitted: boolean, expect: number): Promise<[string, string][]> => {
      const consumer = kafka(`txn-crash-verify-${readUncommitted}`).consumer({
        groupId: `txn-crash-verify-${readUncommitted ? 'uncommitted' : 'committed'}`,
        readUncommitted,
        maxWaitTimeInMs: 200,
      });
      const seen: [string, string][] = [];
      let last = Date.now();
      await consumer.connect();
      await consumer.subscribe({ topic: B, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          seen.push([`${partition}:${message.offset}`, String(message.value)]);
          last = Date.now();
        },
      });
      // Until the expected count and a quiet second after it (duplicates would come late), bounded.
      const until = Math.min(deadline + 30_000, Date.now() + 30_000);
      while (Date.now() < until && (seen.length < expect || Date.now() - last < 1_000)) await sleep(100);
      await within(consumer.disconnect(), 5_000, undefined);
      return seen;
    };
    await liveStarted;
    const committedAt = await readB(false, values.length);
    const committed = committedAt.map(([, v]) => v);
    const counts = new Map<string, number>();
    for (const v of committed) counts.set(v, (counts.get(v) ?? 0) + 1);
    const byOffset = new Map(committedAt);
    // The live reader may still be behind, waiting to rejoin (LIVE_SESSION_TIMEOUT_MS): wait until it
    // holds every committed offset of B, or a value there that the check below reports.
    const catchUpStart = Date.now();
    const catchUpUntil = catchUpStart + LIVE_SESSION_TIMEOUT_MS + LIVE_CATCH_UP_MARGIN_MS;
    const liveBehind = () => committedAt.filter(([at]) => !live.has(at)).length;
    while (liveBehind() > 0 && Date.now() < catchUpUntil) await sleep(100);
    const behind = liveBehind();
    report.liveCatchUp = behind
      ? `the live reader still lacked ${behind} of ${committedAt.length} committed offsets of ${B} ${Date.now() - catchUpStart} ms after the final read (${report.liveRejoins} rejoins as a new member)`
      : `the live reader held every committed offset of ${B} ${Date.now() - catchUpStart} ms after the final read`;
    report.liveDelivered = live.size;
    report.liveNotCommitted = [...live].filter(([at, v]) => byOffset.get(at) !== v).map(([at, v]) => `${v}@${at}`);
    const inA = new Set(values);
    report.missing = values.filter((v) => !counts.has(v));
    report.duplicated = Object.fromEntries([...counts].filter(([, c]) => c > 1));
    report.unexpected = [...counts.keys()].filter((v) => !inA.has(v));
    const uncommitted = (await readB(true, values.length)).map(([, v]) => v);
    report.abortedRecords = uncommitted.length - committed.length;
    log(
      `txn-crash: live read_committed ${live.size} records (${report.liveNotCommitted.length} not committed, ${report.liveRestarts} reader restarts, ${report.liveRejoins} rejoins; ${report.liveCatchUp}); B read_committed ${committed.length} records (${report.missing.length} missing, ${Object.keys(report.duplicated).length} duplicated), read_uncommitted ${uncommitted.length}; ${report.commits} commits`,
    );
    return report;
  } finally {
    done = true;
    liveStopped = true;
    if (liveConsumer) await within(liveConsumer.disconnect(), 5_000, undefined);
    await killer.catch(() => {});
    report.brokerErrors = allBrokers.flatMap((b) => b.lines.filter((l) => l.level === 'error'));
    await broker.stop();
  }
}
