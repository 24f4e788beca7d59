// confluent-kafka from PyPI, whose wheel bundles a current librdkafka (python/requirements-pypi.txt
// pins it; the venv is made once, see python-venv.ts), against the broker on SQLite: idempotent
// produce with every codec, a consumer group that commits and resumes across a broker restart,
// the AdminClient, out-of-range positions reset to earliest, and group.protocol=consumer (KIP-848:
// the broker assigns; a classic consumer carries on inside a group upgraded online).
// python-clients.test.ts keeps Debian's confluent-kafka 1.7.0 (librdkafka 2.0.2); this file is
// the librdkafka of this decade (Produce v10, Fetch v16 by topic id, ...).
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { loadLazyBrokerModules } from '../support/lazy-broker-modules';
import { run, RunResult, startTestBroker, tempDir, lastJson } from './helpers';
import { venvPython } from './python-venv';

const REQUIREMENTS = path.join(__dirname, 'python', 'requirements-pypi.txt');
const script = (name: string) => path.join(__dirname, 'python', name);
/** compression.type -> the codec id in a record batch's attributes (bits 0-2). */
const CODECS = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;
/**
 * Groups form at once: each group here has one member (it waited the 3 s initial rebalance delay).
 * group.protocol=consumer members heartbeat every second, not 5 s: a partition the classic member
 * gives up in the converted group reaches the new member at its next heartbeat (6.0 -> 2.9 s).
 */
const NO_DELAY = {
  groupInitialRebalanceDelayMs: 0,
  groupConsumerHeartbeatIntervalMs: 1000,
  groupConsumerMinHeartbeatIntervalMs: 1000,
};
/**
 * What a member may see across a broker restart: connection errors while the broker is down, then
 * one failed commit, because group membership lives in memory and the restarted coordinator no
 * longer knows the member's generation (it rejoins and the record is redelivered).
 */
const RESTART_ERRORS = ['_TRANSPORT', '_ALL_BROKERS_DOWN', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID'];

interface KafkaErr {
  name: string;
  message: string;
  fatal?: boolean;
}

/** A running script whose stdout lines can be awaited; killed after timeoutMs. */
function spawnLines(cmd: string, args: string[], timeoutMs: number) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    const parts = (partial + d).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<RunResult>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      if (partial) lines.push(partial);
      resolve({ code, stdout: lines.join('\n'), stderr });
    }),
  );
  let exited = false;
  void done.then(() => (exited = true));
  return {
    done,
    /** Resolves once `n` lines were printed; fails if the script exits or `ms` pass first. */
    async waitForLines(n: number, ms: number): Promise<void> {
      const deadline = Date.now() + ms;
      while (lines.length < n) {
        if (exited || Date.now() > deadline)
          throw new Error(
            `expected ${n} lines, got ${lines.length}${exited ? ' before the script exited' : ` in ${ms} ms`}: ${stderr.slice(-2000)}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

describeWithTools('python3-venv')('confluent-kafka from PyPI (current librdkafka)', () => {
  let python: string;
  let broker: RunningBroker;
  const tmp = tempDir();
  const url = `sqlite://${path.join(tmp.dir, 'ck.db')}`;
  const bootstrap = () => `127.0.0.1:${broker.port}`;
  const py = async (name: string, args: string[], timeoutMs = 60_000) =>
    lastJson(name, await run(python, [script(name), ...args], { timeoutMs }));
  const produce = (topic: string, prefix: string, count: number, codec: keyof typeof CODECS = 'zstd') =>
    py('ck_produce.py', [bootstrap(), topic, prefix, String(count), codec]);
  const values = (prefix: string, from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => `${prefix} ${from + i}`);

  // The tests that share the broker run at once (it.concurrent: their own topics and groups; their
  // time is spent waiting on client processes), with the broker's lazily loaded modules loaded
  // first (support/lazy-broker-modules.ts says why); the two that restart it run after them, alone.
  beforeAll(async () => {
    loadLazyBrokerModules();
    python = await venvPython(REQUIREMENTS);
    const r = await run(python, [
      '-c',
      'import confluent_kafka as c; from importlib.metadata import version; print("confluent-kafka", version("confluent-kafka"), "with librdkafka", c.libversion()[0])',
    ]);
    if (r.code !== 0) throw new Error(`the venv's confluent_kafka does not import: ${r.stderr}`);
    console.log(`confluent-kafka-pypi.test.ts: ${r.stdout.trim()}`);
    broker = await startTestBroker(url, { config: NO_DELAY });
  }, 360_000);
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it.concurrent.each(Object.keys(CODECS) as (keyof typeof CODECS)[])(
    'produces idempotently with %s and a group reads it back',
    async (codec) => {
      const topic = `ck-codec-${codec}`;
      const sent = await produce(topic, codec, 40, codec);
      expect(sent.errors).toEqual([]);
      expect(sent.delivered).toEqual(Array.from({ length: 40 }, (_, i) => [0, i]));
      const batches = (await broker.context.storage.read(topic, 0, 0, 1 << 30)).batches;
      expect(new Set(batches.map((b) => b.readInt16BE(21) & 7))).toEqual(new Set([CODECS[codec]]));
      // An idempotent producer's batches carry its producer id (offset 43) and consecutive sequences.
      expect(batches.every((b) => b.readBigInt64BE(43) >= 0n)).toBe(true);
      const sequences = batches.map((b) => [b.readInt32BE(53), b.readInt32BE(57)]); // baseSequence, record count
      sequences.forEach(([base], i) => expect(base).toBe(i === 0 ? 0 : sequences[i - 1]![0]! + sequences[i - 1]![1]!));

      const read = await py('ck_group_consume.py', [bootstrap(), topic, `ck-codec-group-${codec}`, '40', '30']);
      expect(read.errors).toEqual([]);
      expect(read.values).toEqual(values(codec, 0, 40));
      expect(read.committed).toEqual({ '0': 40 });
    },
    90_000,
  );

  it.concurrent(
    'AdminClient: topics, configs, records, offsets, cluster, a live group, its offsets, deleting groups and topics',
    async () => {
      const out = await py('ck_admin.py', [bootstrap(), 'ck-admin', 'ck-admin-group'], 90_000);
      expect(out.create).toEqual({ 'ck-admin': 'ok', 'ck-admin-doomed': 'ok' });
      expect(out.create_again).toEqual({ 'ck-admin': 'TOPIC_ALREADY_EXISTS' });
      // ConfigSource: 1 = DYNAMIC_TOPIC_CONFIG (set at creation), 5 = DEFAULT_CONFIG.
      expect(out.describe_configs).toEqual({
        'retention.ms': { value: '3600000', source: 1 },
        'cleanup.policy': { value: 'delete', source: 5 },
      });
      expect(out.delete_records).toEqual({ low_watermark: 3 });
      expect(out.list_offsets).toEqual({ earliest: 3, latest: 5 });
      expect(out.describe_cluster).toEqual({ nodes: 1, controller: broker.context.identity.nodeId });
      expect(out.describe_topics).toEqual({ partitions: 3 });
      expect(out.list_groups).toContainEqual(['ck-admin-group', 'ConsumerGroupState.STABLE']);
      expect(out.describe_group).toEqual({
        state: 'ConsumerGroupState.STABLE',
        members: [[0, 1, 2]],
        assignor: 'range',
      });
      // Offsets of a group with members are its members' to commit (Kafka: UNKNOWN_MEMBER_ID).
      expect(out.alter_offsets_live).toEqual([[0, 2, 'UNKNOWN_MEMBER_ID']]);
      expect(out.alter_offsets_empty).toEqual([[0, 2, null]]);
      expect(out.list_group_offsets).toEqual([['ck-admin', 0, 2]]);
      expect(out.delete_groups).toEqual({ 'ck-admin-group': 'ok', 'ck-admin-group-missing': 'GROUP_ID_NOT_FOUND' });
      expect(out.delete_topics).toEqual({ 'ck-admin-doomed': 'ok' });
      expect(out.listed_after_delete).toBe(false);
    },
    120_000,
  );

  it.concurrent(
    "AdminClient: a broker's dynamic configs minnow does not use are set and read back (librdkafka 0081)",
    async () => {
      const out = await py('ck_broker_configs.py', [bootstrap(), String(broker.context.identity.nodeId)]);
      // The legacy AlterConfigs replaces the broker's set, so the incremental one comes after it.
      expect(out.alter).toBe('ok');
      expect(out.incremental).toBe('ok');
      // ConfigSource 2 = DYNAMIC_BROKER_CONFIG.
      expect(out.describe).toEqual({
        'sasl.kerberos.min.time.before.relogin': { value: '58000', source: 2 },
        'log.cleaner.threads': { value: '2', source: 2 },
      });
    },
    90_000,
  );

  it.concurrent(
    'resets out-of-range positions (past the end, below the log start) with auto.offset.reset=earliest and reads the records',
    async () => {
      const out = await py('ck_offset_reset.py', [bootstrap(), 'ck-out-of-range', '6', '4', '20']);
      // librdkafka logs each reset as a WARNING ("offset reset ... Offset out of range"); a fetch
      // response it cannot parse (e.g. null records for the erroring partition) is an ERROR.
      const problems = (out.logs as string[]).filter((l) => /^(ERROR|CRITICAL) /.test(l));
      expect({ values: out.values, errors: out.errors, logs: problems }).toEqual({
        values: {
          '0': [0, 1, 2, 3, 4, 5].map((o) => [o, `p0 ${o}`]),
          '1': [4, 5].map((o) => [o, `p1 ${o}`]),
        },
        errors: [],
        logs: [],
      });
    },
    90_000,
  );

  it.concurrent(
    'consumes and commits with group.protocol=consumer (KIP-848: the broker assigns)',
    async () => {
      const out = await py('ck_consumer_protocol.py', [bootstrap(), 'ck-codec-zstd', 'ck-kip848-group', '40', '40']);
      expect(out.errors).toEqual([]);
      expect([...out.values].sort()).toEqual([...values('zstd', 0, 40)].sort());
      const problems = (out.logs as string[]).filter((l) => /^(ERROR|CRITICAL) /.test(l));
      expect(problems).toEqual([]);
      const end = out.committed.reduce((n: number, [, offset]: [number, number]) => n + offset, 0);
      expect(end).toBe(40);
    },
    60_000,
  );

  // KIP-848's online upgrade: a classic librdkafka consumer keeps consuming inside the consumer
  // group its live classic group becomes when a group.protocol=consumer one joins.
  it.concurrent(
    'a classic consumer and a group.protocol=consumer one share a group converted online',
    async () => {
      await broker.context.storage.createTopic('ck-mixed', 4, {});
      const out = await py('ck_mixed_group.py', [bootstrap(), 'ck-mixed', 'ck-mixed-group', '40'], 120_000);
      const transient = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'STALE_MEMBER_EPOCH']);
      expect({
        read: out.read,
        twice: out.twice,
        errors: (out.errors as { name: string }[]).filter((e) => !transient.has(e.name.replace(/^_/, ''))),
      }).toEqual({ read: 80, twice: [], errors: [] });
      expect(Object.values(out.assignments).flat().sort()).toEqual([0, 1, 2, 3]);
      expect(out.assignments.classic.length).toBeGreaterThan(0);
      expect(out.assignments.consumer.length).toBeGreaterThan(0);
    },
    150_000,
  );

  // KIP-848's online downgrade with a replaced static member: a classic static member taking the
  // place of the group's last consumer-protocol one turns the group classic again (Kafka 4.1.1).
  it.concurrent(
    'a classic static member replacing a group.protocol=consumer one turns the group classic',
    async () => {
      await broker.context.storage.createTopic('ck-rolling', 2, {});
      const out = await py('ck_static_downgrade.py', [bootstrap(), 'ck-rolling', 'ck-rolling-group', '40'], 120_000);
      expect(out.errors).toEqual([]);
      expect(out.byConsumer).toBe(40);
      expect(out.byClassic).toEqual(Array.from({ length: 40 }, (_, i) => `after-${i}`).sort());
      expect(out.groupType).toMatch(/CLASSIC/);
    },
    150_000,
  );

  // A KIP-848 member's positions sent to a transaction (TxnOffsetCommit with its member epoch):
  // answered ILLEGAL_GENERATION before, so every transaction aborted and the loop never finished.
  it.concurrent(
    'an exactly-once loop with a group.protocol=consumer member commits its transactions',
    async () => {
      const sent = await py('ck_produce.py', [bootstrap(), 'ck-eos-in', 'eos', '120', 'none']);
      expect(sent.errors).toEqual([]);
      const out = await py(
        'ck_txn_loop.py',
        [bootstrap(), 'ck-eos-in', 'ck-eos-out', 'ck-eos-group', 'ck-eos-txn', '120', '20', '60', 'consumer'],
        90_000,
      );
      expect(out).toMatchObject({ done: true, restarts: 0, aborts: 0, reasons: [] });
      expect(out.commits).toBeGreaterThan(0);
      // 120 records and a commit marker per transaction.
      const copied = await broker.context.storage.offsets('ck-eos-out', 0);
      expect(copied?.highWatermark).toBeGreaterThan(120);
    },
    120_000,
  );

  it('a group member commits, rides out a broker restart on the same port and resumes; a new run starts after the commits', async () => {
    const topic = 'ck-resume';
    const group = 'ck-resume-group';
    expect((await produce(topic, 'before', 10)).errors).toEqual([]);
    const member = spawnLines(python, [script('ck_group_consume.py'), bootstrap(), topic, group, '20', '90'], 120_000);
    await member.waitForLines(10, 60_000); // each line is printed after its synchronous commit

    const port = broker.port;
    await broker.stop();
    broker = await startTestBroker(url, {
      config: { ...NO_DELAY, listeners: [{ host: '127.0.0.1', port, securityProtocol: 'PLAINTEXT' }] },
    });
    expect((await produce(topic, 'after', 10)).errors).toEqual([]);

    const first = lastJson('ck_group_consume.py (through the restart)', await member.done);
    expect(first.values).toEqual([...values('before', 0, 10), ...values('after', 0, 10)]);
    expect(first.committed).toEqual({ '0': 20 });
    expect((first.errors as KafkaErr[]).filter((e) => !RESTART_ERRORS.includes(e.name))).toEqual([]);

    expect((await produce(topic, 'later', 3)).errors).toEqual([]);
    const second = await py('ck_group_consume.py', [bootstrap(), topic, group, '3', '30']);
    expect(second.values).toEqual(values('later', 0, 3));
    expect(second.committed).toEqual({ '0': 23 });
    expect(second.errors).toEqual([]);
  }, 150_000);

  it('a group.protocol=consumer member rides out a broker restart with its member id and epoch (no rebalance)', async () => {
    const topic = 'ck-kip848-restart';
    const group = 'ck-kip848-restart-group';
    expect((await produce(topic, 'before', 10)).errors).toEqual([]);
    const member = spawnLines(
      python,
      [script('ck_group_consume.py'), bootstrap(), topic, group, '20', '90', 'consumer'],
      120_000,
    );
    await member.waitForLines(10, 60_000);
    const held = broker.context.groups.consumer.group(group)!;
    const [memberId, before] = [...held.members.entries()][0]!;
    const epoch = held.groupEpoch;

    const port = broker.port;
    await broker.stop();
    broker = await startTestBroker(url, {
      config: { ...NO_DELAY, listeners: [{ host: '127.0.0.1', port, securityProtocol: 'PLAINTEXT' }] },
    });
    expect((await produce(topic, 'after', 10)).errors).toEqual([]);
    await member.waitForLines(20, 60_000);
    // The restarted broker loaded the group: the same member at the same epochs, never rejoined
    // (checked before the member leaves at its end, which moves the group to a new epoch).
    const after = broker.context.groups.consumer.group(group);
    expect({ groupEpoch: after?.groupEpoch, memberEpoch: after?.members.get(memberId)?.memberEpoch }).toEqual({
      groupEpoch: epoch,
      memberEpoch: before.memberEpoch,
    });
    const first = lastJson('ck_group_consume.py (through the restart)', await member.done);
    expect(first.values).toEqual([...values('before', 0, 10), ...values('after', 0, 10)]);
    expect(first.committed).toEqual({ '0': 20 });
    const unexpected = (first.errors as KafkaErr[]).filter(
      (e) => !['_TRANSPORT', '_ALL_BROKERS_DOWN'].includes(e.name),
    );
    expect(unexpected).toEqual([]);
  }, 150_000);
});
