// What 1,000 group members cost the broker (issue 32, "Proof: cost"): a child-process broker on
// SQLite and a raw-protocol driver standing in for 1,000 members, for both Kafka 4 group kinds:
//   consumer  one KIP-848 group of 1,000 members on a 1,000-partition topic (one partition each)
//   share     five KIP-932 share groups of 200 members (group.share.max.size) on a 10-partition topic
// The members join and settle first (not measured). Then, from the broker's CPU time in
// /proc/PID/stat (user+sys, so a busy machine inflates wall time but much less the CPU):
//   idle      the broker's own timers with every member silent, over the paced window
//   paced     each member heartbeats once per default interval (5 s: 200 heartbeats/s), over
//             --paced-s seconds; minus idle, as a share of one core and of a t3.micro's baseline
//             (20 % of one vCPU: 2 vCPUs at 10 % each, AWS burstable baseline)
//   flat out  --burst heartbeats with --window in flight: CPU per heartbeat, and what one core
//             sustains at that cost
// The members share --connections connections (100; a real member has its own, and a lone small
// request per wake-up costs more than the flat-out phase's pipelined ones).
// A steady heartbeat is what the Java client sends between rebalances: the member id and epoch,
// every other field null (-1).
// Run: npx tsx bench/group-heartbeats.bench.ts [--kind consumer|share|both] [--paced-s 30] [--burst 20000]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { KafkaConnection } from '../src/client/connection';
import { ApiKey } from '../src/protocol/api-keys';
import { ErrorCode, errorName } from '../src/protocol/error-codes';
import type { ConsumerGroupHeartbeatResponse, ShareGroupHeartbeatResponse } from '../src/protocol/messages';
import { randomUuid } from '../src/protocol/uuid';
import { ChildBroker } from '../tools/resilience/child-broker';
import { clockTicks, parseCpuSeconds } from './proc';

const INTERVAL_MS = 5_000; // group.consumer.heartbeat.interval.ms and group.share.heartbeat.interval.ms
const T3_MICRO_BASELINE_CORES = 0.2;

interface Member {
  groupId: string;
  memberId: string;
  epoch: number;
  /** consumer: the partitions it owns (topic id -> partitions), as the client reports them. */
  owned: Array<{ topicId: string; partitions: number[] }>;
}

interface Phase {
  name: string;
  heartbeats: number;
  cpuS: number;
  wallS: number;
}

const cpuOf = (pid: number) => parseCpuSeconds(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'), clockTicks());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `task` for each item with at most `window` in flight. */
async function inWindow<T>(items: readonly T[], window: number, task: (item: T, i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(window, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await task(items[i]!, i);
      }
    }),
  );
}

class Driver {
  constructor(
    readonly conns: KafkaConnection[],
    readonly kind: 'consumer' | 'share',
    readonly topic: string,
  ) {}

  private conn(i: number) {
    return this.conns[i % this.conns.length]!;
  }

  async join(m: Member, i: number): Promise<void> {
    if (this.kind === 'share') {
      const res: ShareGroupHeartbeatResponse = await this.conn(i).send(ApiKey.ShareGroupHeartbeat, 1, {
        groupId: m.groupId,
        memberId: m.memberId,
        memberEpoch: 0,
        rackId: null,
        subscribedTopicNames: [this.topic],
      });
      if (res.errorCode !== ErrorCode.NONE)
        throw new Error(`ShareGroupHeartbeat join: ${errorName(res.errorCode)} ${res.errorMessage ?? ''}`);
      m.epoch = res.memberEpoch;
      return;
    }
    const res: ConsumerGroupHeartbeatResponse = await this.conn(i).send(ApiKey.ConsumerGroupHeartbeat, 1, {
      groupId: m.groupId,
      memberId: m.memberId,
      memberEpoch: 0,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: 600_000,
      subscribedTopicNames: [this.topic],
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: [],
    });
    if (res.errorCode !== ErrorCode.NONE)
      throw new Error(`ConsumerGroupHeartbeat join: ${errorName(res.errorCode)} ${res.errorMessage ?? ''}`);
    m.epoch = res.memberEpoch;
    if (res.assignment) m.owned = res.assignment.topicPartitions;
  }

  /** One heartbeat; `report` sends the owned partitions (reconciling). Returns whether anything changed. */
  async heartbeat(m: Member, i: number, report = false): Promise<boolean> {
    if (this.kind === 'share') {
      const res: ShareGroupHeartbeatResponse = await this.conn(i).send(ApiKey.ShareGroupHeartbeat, 1, {
        groupId: m.groupId,
        memberId: m.memberId,
        memberEpoch: m.epoch,
        rackId: null,
        subscribedTopicNames: null,
      });
      if (res.errorCode !== ErrorCode.NONE)
        throw new Error(`ShareGroupHeartbeat: ${errorName(res.errorCode)} ${res.errorMessage ?? ''}`);
      const changed = res.memberEpoch !== m.epoch;
      m.epoch = res.memberEpoch;
      return changed;
    }
    const res: ConsumerGroupHeartbeatResponse = await this.conn(i).send(ApiKey.ConsumerGroupHeartbeat, 1, {
      groupId: m.groupId,
      memberId: m.memberId,
      memberEpoch: m.epoch,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: -1,
      subscribedTopicNames: null,
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: report ? m.owned : null,
    });
    if (res.errorCode !== ErrorCode.NONE)
      throw new Error(`ConsumerGroupHeartbeat: ${errorName(res.errorCode)} ${res.errorMessage ?? ''}`);
    const changed = res.memberEpoch !== m.epoch || res.assignment != null;
    m.epoch = res.memberEpoch;
    if (res.assignment) m.owned = res.assignment.topicPartitions;
    return changed;
  }
}

async function measure(
  kind: 'consumer' | 'share',
  opts: { pacedS: number; burst: number; window: number; connections: number },
): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-hb-bench-'));
  const broker = await ChildBroker.start({
    storageUrl: `sqlite://${path.join(dir, 'hb.db')}`,
    // Joining computes 1,000 target assignments (seconds of CPU): no member may time out meanwhile.
    env: {
      LOG_LEVEL: 'info',
      GROUP_CONSUMER_SESSION_TIMEOUT_MS: '600000',
      GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS: '600000',
    },
  });
  const conns = await Promise.all(
    Array.from({ length: opts.connections }, () =>
      KafkaConnection.connect('127.0.0.1', broker.port, { clientId: 'hb-bench', requestTimeoutMs: 120_000 }),
    ),
  );
  try {
    const topic = `hb-${kind}`;
    const partitions = kind === 'consumer' ? 1000 : 10;
    const ct = await conns[0]!.send(ApiKey.CreateTopics, conns[0]!.version(ApiKey.CreateTopics, 2, 7), {
      topics: [{ name: topic, numPartitions: partitions, replicationFactor: -1, assignments: [], configs: [] }],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    if (ct.topics[0].errorCode !== ErrorCode.NONE)
      throw new Error(`CreateTopics: ${errorName(ct.topics[0].errorCode)}`);
    const members: Member[] = Array.from({ length: 1000 }, (_, i) => ({
      groupId: kind === 'consumer' ? 'hb-group' : `hb-share-${Math.floor(i / 200)}`,
      memberId: randomUuid(),
      epoch: 0,
      owned: [],
    }));
    const driver = new Driver(conns, kind, topic);

    // Join and settle (not measured): until one round of heartbeats changes nothing.
    const joinCpu0 = cpuOf(broker.pid);
    const joinT0 = Date.now();
    await inWindow(members, 16, (m, i) => driver.join(m, i));
    let rounds = 0;
    for (; rounds < 60; rounds++) {
      let changed = 0;
      await inWindow(members, 64, async (m, i) => {
        if (await driver.heartbeat(m, i, true)) changed++;
      });
      if (changed === 0) break;
    }
    const join = { cpuS: cpuOf(broker.pid) - joinCpu0, wallS: (Date.now() - joinT0) / 1000, settleRounds: rounds };
    const owning = members.filter((m) => m.owned.some((t) => t.partitions.length > 0)).length;
    const epochs = new Set(members.map((m) => m.epoch)).size;

    const phases: Phase[] = [];
    const phase = async (name: string, body: () => Promise<number>) => {
      const cpu0 = cpuOf(broker.pid);
      const t0 = Date.now();
      const heartbeats = await body();
      phases.push({ name, heartbeats, cpuS: cpuOf(broker.pid) - cpu0, wallS: (Date.now() - t0) / 1000 });
    };
    // Idle: every member silent (their session timers still run), as long as the paced window.
    await phase('idle', async () => {
      await sleep(opts.pacedS * 1000);
      return 0;
    });
    // Paced: each member once per interval, spread evenly (200 heartbeats/s for 1,000 members).
    await phase('paced', async () => {
      const perTick = members.length / (INTERVAL_MS / 100);
      const ticks = (opts.pacedS * 1000) / 100;
      let sent = 0;
      const start = Date.now();
      for (let t = 0; t < ticks; t++) {
        const batch = Array.from({ length: perTick }, (_, j) => (t * perTick + j) % members.length);
        await Promise.all(batch.map((i) => driver.heartbeat(members[i]!, i)));
        sent += batch.length;
        const due = start + (t + 1) * 100;
        if (due > Date.now()) await sleep(due - Date.now());
      }
      return sent;
    });
    // Flat out: as fast as the broker answers, `window` in flight.
    await phase('flat out', async () => {
      const order = Array.from({ length: opts.burst }, (_, k) => k % members.length);
      await inWindow(order, opts.window, (i) => driver.heartbeat(members[i]!, i).then(() => undefined));
      return opts.burst;
    });

    const idle = phases[0]!;
    const paced = phases[1]!;
    const flat = phases[2]!;
    const pacedCores = (paced.cpuS - idle.cpuS) / paced.wallS;
    const usPerHeartbeat = (flat.cpuS / flat.heartbeats) * 1e6;
    return {
      kind,
      members: members.length,
      groups: new Set(members.map((m) => m.groupId)).size,
      partitions,
      join: { ...join, membersOwning: owning, distinctEpochs: epochs },
      phases,
      pacedHeartbeatsPerS: Math.round(paced.heartbeats / paced.wallS),
      pacedCorePercent: +(pacedCores * 100).toFixed(2),
      pacedShareOfT3MicroBaselinePercent: +((pacedCores / T3_MICRO_BASELINE_CORES) * 100).toFixed(1),
      idleCorePercent: +((idle.cpuS / idle.wallS) * 100).toFixed(2),
      flatOutUsPerHeartbeat: +usPerHeartbeat.toFixed(1),
      flatOutHeartbeatsPerWallS: Math.round(flat.heartbeats / flat.wallS),
      heartbeatsPerCoreSecond: Math.round(1e6 / usPerHeartbeat),
      rssMiB: Math.round(broker.memoryKiB().rssKiB / 1024),
    };
  } finally {
    for (const c of conns) c.close();
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kind: { type: 'string', default: 'both' },
      'paced-s': { type: 'string', default: '30' },
      burst: { type: 'string', default: '20000' },
      window: { type: 'string', default: '64' },
      connections: { type: 'string', default: '100' },
    },
  });
  const kinds = values.kind === 'both' ? (['consumer', 'share'] as const) : [values.kind as 'consumer' | 'share'];
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const kind of kinds) {
    const r = await measure(kind, {
      pacedS: Number(values['paced-s']),
      burst: Number(values.burst),
      window: Number(values.window),
      connections: Number(values.connections),
    });
    console.log(JSON.stringify(r));
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
