// PostgreSQL goes away for ALL three brokers at once (docs/postgres.md "Failure cases"): stopped
// (pg_ctl -m immediate: connections reset, new ones refused), or an RDS Multi-AZ failover (the
// brokers reach it through one TCP proxy that black-holes every connection, then lets new ones
// through while the old ones stay silent for ever), under a kafkajs idempotent producer, a kafkajs
// group with members on different brokers, and kcat. Every broker's lease renewal fails, each fences itself
// (drops its coordinators); when the database returns they must all carry on without a restart:
// nothing acknowledged lost or duplicated, the clients go on, Metadata lists every broker again
// with the same placement, and no broker took the others for dead on its way back (that churn
// would move every leader and group to the first broker back, then back again).
import { execFile, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { postgresBinDir } from '../support/external-tools';
import { startPrivatePostgres, type PrivateServer } from '../support/postgres-server';
import { run, tempDir } from '../integration/helpers';
import { describeWithTools } from '../support/external-tools';
import { startChildCluster, type ChildCluster } from './child-cluster';
import { startLoad } from './produce-load';
import { TcpProxy } from './tcp-proxy';

// Longer than the tests' 4 s lease (child-cluster.ts) plus a renewal: every broker lapses and stays
// lapsed for several heartbeats (>= 2.5 s, 5 of 500 ms) before the database returns (the point of
// the test), as in a 60-120 s RDS failover, without waiting that out. (10 s before: 3 s of each
// test spent lapsed beyond that.)
const OUTAGE_MS = 7_000;
const PARTITIONS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each partition's leader, by partition. */
const leadersOf = (m: { topics: { partitions: { partitionId: number; leader: number }[] }[] }) =>
  [...m.topics[0]!.partitions].sort((a, b) => a.partitionId - b.partitionId).map((p) => p.leader);

describeWithTools('postgresql', 'kcat')('PostgreSQL down for all three brokers at once', () => {
  jest.setTimeout(300_000);
  const tmp = tempDir('minnow-db-outage-');
  let pg: PrivateServer;
  let proxy: TcpProxy;
  let cluster: ChildCluster;

  beforeAll(async () => {
    // A private server of this file's own: the test stops it (others may share the tests' server).
    pg = await startPrivatePostgres(postgresBinDir());
    const through = await TcpProxy.forUrl(`${pg.baseUrl}/postgres`);
    proxy = through.proxy;
    cluster = await startChildCluster(through.url, tmp.dir);
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    await proxy?.stop();
    pg?.stop();
    tmp.cleanup();
  }, 60_000);

  /** pg_ctl as the server's user (root runs it as `postgres`, see postgres-server.ts). */
  const pgCtl = async (action: 'stop' | 'start') => {
    const ctl = [path.join(postgresBinDir()!, 'pg_ctl'), '-D', path.join(pg.dir, 'data')];
    const [cmd, ...args] = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...ctl] : ctl;
    const opts = action === 'stop' ? ['-m', 'immediate'] : ['-l', path.join(pg.dir, 'server.log')];
    await promisify(execFile)(cmd!, [...args, ...opts, '-w', '-t', '60', action], { cwd: pg.dir });
  };

  it('stopped for 7 s: the clients carry on, nothing acknowledged is lost or duplicated, every broker comes back', () =>
    rideThrough('stop', {
      begin: () => pgCtl('stop'),
      end: () => pgCtl('start'),
    }));

  it('a Multi-AZ failover (7 s of silence, then a new server; the old connections never answer): the same', () =>
    rideThrough('failover', {
      begin: async () => proxy.blackHole(),
      end: async () => proxy.heal('silent'),
    }));

  async function rideThrough(name: string, outage: { begin(): Promise<void>; end(): Promise<void> }): Promise<void> {
    const all = [0, 1, 2].map((i) => cluster.address(i));
    // Retries that outlast the outage: up to 2 s apart, 60 of them.
    const kafka = (brokers: string[], clientId: string) =>
      new Kafka({
        clientId,
        brokers,
        logLevel: logLevel.NOTHING,
        retry: { initialRetryTime: 200, retries: 60, maxRetryTime: 2000 },
      });
    const admin = kafka(all, 'outage-admin').admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        { topic: `${name}-load`, numPartitions: PARTITIONS },
        { topic: `${name}-kc`, numPartitions: 1 },
        { topic: `${name}-placed`, numPartitions: 12 },
      ],
      waitForLeaders: true,
    });
    const placedBefore = leadersOf(await admin.fetchTopicMetadata({ topics: [`${name}-placed`] }));
    await admin.disconnect();

    // The group: two members, each bootstrapped from another broker.
    const seenByGroup = new Set<string>();
    let groupCrashed: unknown;
    const members: Consumer[] = [];
    for (const i of [1, 2]) {
      const member = kafka([cluster.address(i)], `member-${i}`).consumer({
        groupId: `${name}-group`,
        heartbeatInterval: 500,
        // The members' fetches fail through the outage (KAFKA_STORAGE_ERROR) until kafkajs's 5
        // retries run out and it restarts each consumer as a new member: the group then waits for
        // the old members' sessions to expire (Kafka does the same). 6 s, Kafka's
        // group.min.session.timeout.ms, not kafkajs's 30: the wait.
        sessionTimeout: 6_000,
        maxWaitTimeInMs: 500,
      });
      member.on(member.events.CRASH, (e) => {
        if (!e.payload.restart) groupCrashed = e.payload.error;
      });
      await member.connect();
      await member.subscribe({ topic: `${name}-load`, fromBeginning: true });
      await member.run({ eachMessage: async ({ message }) => void seenByGroup.add(String(message.value)) });
      members.push(member);
    }

    // The idempotent producer, one partition per send() (produce-load.ts says why).
    const load = await startLoad(kafka(all, 'outage-producer'), `${name}-load`, PARTITIONS, 20);
    const acked = load.acked;

    // kcat through the outage: librdkafka retries its idempotent produce until the database is back.
    const kcatValues = Array.from({ length: 30 }, (_, i) => `k${i}`);
    let kcat: ChildProcessWithoutNullStreams | undefined;
    let kcatErr = '';
    let kcatExit: Promise<number | null> | undefined;
    let linesAtStart: number[] = [];
    try {
      await load.waitForAcks(150, 'before the outage', 60_000);
      // -E: carry on past non-fatal errors, as an application does; kcat alone exits on librdkafka's
      // informational "All broker connections are down", which a lapsed broker's closed Metadata
      // connections raise when every broker has lapsed (docs/postgres.md "Failure cases").
      kcat = spawn('kcat', ['-b', all.join(','), '-E', '-P', '-t', `${name}-kc`, '-p', '0',
        '-X', 'enable.idempotence=true', '-X', 'message.timeout.ms=120000'], { stdio: ['pipe', 'pipe', 'pipe'] }); // prettier-ignore
      kcat.stderr.on('data', (d: Buffer) => (kcatErr += d.toString()));
      kcatExit = new Promise((resolve) => kcat!.on('close', resolve));
      kcat.stdin.write(kcatValues.slice(0, 10).join('\n') + '\n');
      try {
        await outage.begin();
        await sleep(OUTAGE_MS / 2);
        kcat.stdin.write(kcatValues.slice(10, 20).join('\n') + '\n');
        await sleep(OUTAGE_MS / 2);
      } finally {
        linesAtStart = cluster.brokers.map((b) => b.lines.length);
        await outage.end();
      }
      const atStart = acked.size;
      kcat.stdin.end(kcatValues.slice(20).join('\n') + '\n');
      await load.waitForAcks(atStart + 150, 'after the outage', 60_000);
    } finally {
      await load.stop();
    }
    const kcatCode = await kcatExit;
    expect({ failure: load.failure === undefined ? undefined : String(load.failure) }).toEqual({ failure: undefined });

    // The group read everything acknowledged, including what was produced after the outage.
    const lastAcked = [...acked.values()];
    for (let i = 0; i < 600 && !groupCrashed && lastAcked.some((v) => !seenByGroup.has(v)); i++) await sleep(100);
    await Promise.all(members.map((m) => m.disconnect().catch(() => {})));
    expect({ groupCrashed, missed: lastAcked.filter((v) => !seenByGroup.has(v)).length }).toEqual({
      groupCrashed: undefined,
      missed: 0,
    });

    // Every broker lists all three again, with the placement of before the outage.
    const checker = kafka(all, 'outage-check').admin();
    await checker.connect();
    let placedAfter: number[] = [];
    let listed: number[][] = [];
    for (let i = 0; i < 100; i++) {
      placedAfter = leadersOf(await checker.fetchTopicMetadata({ topics: [`${name}-placed`] }));
      listed = await Promise.all(
        [0, 1, 2].map(async (b) => {
          const one = kafka([cluster.address(b)], `describe-${b}`).admin();
          await one.connect();
          const d = await one.describeCluster();
          await one.disconnect();
          return d.brokers.map((x) => x.nodeId).sort();
        }),
      );
      if (listed.every((l) => l.length === 3) && placedAfter.join() === placedBefore.join()) break;
      await sleep(100);
    }
    expect({ listed, placedAfter }).toEqual({
      listed: [
        [1, 2, 3],
        [1, 2, 3],
        [1, 2, 3],
      ],
      placedAfter: placedBefore,
    });

    // Read everything back with a fresh consumer: each acknowledged record once, at its offset.
    await checker.disconnect();
    await load.verify(all);

    // kcat delivered every record once and exited 0.
    const read = await run('kcat', ['-b', all[0]!, '-C', '-t', `${name}-kc`, '-o', 'beginning', '-e', '-f', '%s\n']);
    const failed = kcatErr.split('\n').filter((l) => /^% Delivery failed/.test(l));
    expect({ kcatCode, failed, read: read.stdout.trimEnd().split('\n') }).toEqual({
      kcatCode: 0,
      failed: [],
      read: kcatValues,
    });

    // No broker exited, and none took the others for dead when the database came back: every view
    // any of them applied since then listed all three (no leaders or groups moved back and forth).
    expect(cluster.brokers.map((b) => b.alive)).toEqual([true, true, true]);
    const partialViews = cluster.brokers.flatMap((b, i) =>
      b.lines
        .slice(linesAtStart[i])
        .filter((l) => l.msg === 'cluster membership changed' && (l.brokers as number[]).length < 3)
        .map((l) => `broker ${i + 1}: epoch ${String(l.epoch)} [${String(l.brokers)}]`),
    );
    expect(partialViews).toEqual([]);
  }
});
