// The Java client (org.apache.kafka:kafka-clients, Kafka's reference client) against the broker,
// in a 4.x and a 3.x release, whose defaults and protocol versions differ. broker/test/java holds a
// driver built once per release; one JVM per release runs every scenario and prints one JSON line
// per scenario, and the tests below assert on what the client returned. .ci/run resolves the
// Maven dependencies beforehand; here Maven runs only when the driver's sources changed.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { createHandlers } from '../../src/server/handlers';
import { apiVersionsBody } from '../../src/server/handlers/api-versions';
import { describeWithTools } from '../support/external-tools';
import { loadLazyBrokerModules } from '../support/lazy-broker-modules';
import { runJava } from '../support/java-launch';
import { kcat, startTestBroker, tempDir } from './helpers';
import { buildDriver, driverClasspath, LINES } from './java-driver';

type Line = (typeof LINES)[number];
// KIP-848's group.protocol=consumer has a file of its own: consumer-protocol-java.test.ts.
const SCENARIOS = ['produce', 'fetch', 'group', 'rebalance', 'admin', 'transactions'];
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const CODEC_IDS: Record<(typeof CODECS)[number], number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };
const RECORDS = 20;

interface ConsumedRecord {
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string | null>;
}
type ScenarioLine = { scenario: string; ok: boolean; error?: string } & Record<string, any>;

async function runDriver(broker: RunningBroker, line: Line): Promise<Map<string, ScenarioLine>> {
  const r = await runJava(
    {
      classpath: driverClasspath(line.module),
      main: 'minnow.javaclient.Driver',
      args: [`127.0.0.1:${broker.port}`, line.prefix, ...SCENARIOS],
    },
    { timeoutMs: 150_000 },
  );
  const results = new Map<string, ScenarioLine>();
  for (const text of r.stdout.split('\n').filter((l) => l.startsWith('{'))) {
    const parsed = JSON.parse(text) as ScenarioLine;
    results.set(parsed.scenario, parsed);
  }
  // A missing line means the JVM died or was killed: show why in every test that needs it.
  results.set('exit', {
    scenario: 'exit',
    ok: r.code === 0,
    error: `exit ${r.code}; stderr:\n${r.stderr.slice(-4000)}`,
  });
  return results;
}

describeWithTools(
  'java',
  'mvn',
  'kcat',
)('the Java client (kafka-clients)', () => {
  let broker: RunningBroker;
  const tmp = tempDir();
  const results = new Map<Line['module'], Map<string, ScenarioLine>>();

  beforeAll(async () => {
    loadLazyBrokerModules(); // for the concurrent tests below (support/lazy-broker-modules.ts says why)
    // Groups form at once: each scenario's first member waited the 3 s initial rebalance delay,
    // and every scenario with two members waits for both (the assignments they must end with).
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'java.db')}`, {
      config: { groupInitialRebalanceDelayMs: 0 },
    });
    await buildDriver();
    // Separate prefixes keep the two runs' topics and groups apart, so they can share the broker.
    await Promise.all(LINES.map(async (l) => results.set(l.module, await runDriver(broker, l))));
  }, 330_000);
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  function scenario(line: Line, name: string): ScenarioLine {
    const all = results.get(line.module);
    const s = all?.get(name);
    if (!s)
      throw new Error(`no '${name}' result from ${line.module}: ${all?.get('exit')?.error ?? 'driver did not run'}`);
    return s;
  }

  describe.each(LINES)('$module ($version)', (line) => {
    it('runs the expected client release', async () => {
      expect(scenario(line, 'version').kafkaClients).toBe(line.version);
    });

    // At once (it.concurrent): each codec's kcat read waits ~0.5 s at the partition's end.
    it.concurrent.each(CODECS)(
      'produces with its defaults (idempotent, acks=all) and %s; the Java consumer and kcat read it back',
      async (codec) => {
        const produce = scenario(line, 'produce');
        const r = produce.codecs[codec];
        expect(r.error).toBeUndefined();
        const topic = `${line.prefix}-codec-${codec}`;
        expect(r.topic).toBe(topic);
        expect(r.offsets).toEqual(Array.from({ length: RECORDS }, (_, i) => i));
        const expected = Array.from({ length: RECORDS }, (_, i) => ({
          partition: 0,
          offset: i,
          key: `key-${i}`,
          value: `${codec} value ${i} ${'minnow '.repeat(8)}`,
          headers: { codec, index: String(i) },
        }));
        expect(
          (r.records as ConsumedRecord[]).map(({ partition, offset, key, value, headers }) => ({
            partition,
            offset,
            key,
            value,
            headers,
          })),
        ).toEqual(expected);

        // What was stored: the codec asked for, and idempotent batches (producer id >= 0) since
        // the default producer first sends InitProducerId.
        const batches = (await broker.context.storage.read(topic, 0, 0, 1 << 30)).batches;
        expect(batches.length).toBeGreaterThan(0);
        expect(batches.map((b) => b.readInt16BE(21) & 7).every((c) => c === CODEC_IDS[codec])).toBe(true);
        expect(batches.every((b) => b.readBigInt64BE(43) >= 0n)).toBe(true);

        // Another client (librdkafka) reads the same records, keys and headers.
        const k = await kcat(broker, ['-C', '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-f', '%o|%k|%s|%h\n']);
        expect(k.code).toBe(0);
        expect(k.stdout.trimEnd().split('\n')).toEqual(
          expected.map((e) => `${e.offset}|${e.key}|${e.value}|codec=${codec},index=${e.offset}`),
        );
      },
    );

    it('shares a group between two consumers, commits, and a new member resumes from the commits', async () => {
      const g = scenario(line, 'group');
      expect(g.error).toBeUndefined();
      const p0 = `${line.prefix}-group-0`;
      const p1 = `${line.prefix}-group-1`;
      // One partition each, together both.
      expect([...g.assignmentA, ...g.assignmentB].sort()).toEqual([p0, p1]);
      const consumed = new Set(
        [...g.consumedA, ...g.consumedB].map((r: ConsumedRecord) => `${r.partition}@${r.offset}`),
      );
      expect(consumed).toEqual(new Set([0, 1].flatMap((p) => Array.from({ length: 10 }, (_, i) => `${p}@${i}`))));
      expect({ ...g.committedA, ...g.committedB }).toEqual({ [p0]: 10, [p1]: 10 });
      expect(g.committedBeforeResume).toEqual({ [p0]: 10, [p1]: 10 });
      const resumed = (g.resumed as ConsumedRecord[]).map((r) => `${r.partition}@${r.offset}=${r.value}`).sort();
      expect(resumed).toEqual([0, 1].flatMap((p) => [10, 11, 12, 13, 14].map((i) => `${p}@${i}=p${p}-${i}`)).sort());
      expect(g.resumedExtra).toEqual([]);
    });

    it('fetches a record larger than its fetch limits whole (KIP-74), is refused one over max.message.bytes, and finds offsets', async () => {
      const f = scenario(line, 'fetch');
      expect(f.error).toBeUndefined();
      expect(f.consumed).toEqual([
        { offset: 0, key: 'small-0', valueLength: 1 },
        { offset: 1, key: 'large', valueLength: 900 * 1024 },
        { offset: 2, key: 'small-2', valueLength: 1 },
      ]);
      expect(f.tooLarge).toBe('RecordTooLargeException');
      expect(f.beginningOffsets).toBe(0);
      expect(f.endOffsets).toBe(3);
      // Timestamps t0, t0+10s, t0+20s: the first offset at or after each probe, null past the end.
      expect(f.offsetsForTimes).toEqual({
        '-1': { offset: 0, timestamp: 0 },
        '5000': { offset: 1, timestamp: 10_000 },
        '10000': { offset: 1, timestamp: 10_000 },
        '15000': { offset: 2, timestamp: 20_000 },
        '3600000': null,
      });
    });

    it('rebalances cooperatively (KIP-429) and keeps static members (KIP-345) across a restart', async () => {
      const r = scenario(line, 'rebalance');
      expect(r.error).toBeUndefined();
      const tps = (...ps: number[]) => ps.map((p) => `${line.prefix}-rebalance-${p}`);
      expect(r.cooperative.aloneA).toEqual(tps(0, 1, 2, 3));
      // Sticky: the first member keeps half of what it had, the second gets the rest.
      expect([...r.cooperative.sharedA, ...r.cooperative.sharedB].sort()).toEqual(tps(0, 1, 2, 3));
      expect(r.cooperative.sharedA).toHaveLength(2);
      // Cooperative: only the two partitions that moved were revoked (eager would revoke all four).
      expect(r.cooperative.revokedA).toEqual(r.cooperative.sharedB);
      const s = r.static;
      expect([...s.firstA, ...s.firstB].sort()).toEqual(tps(0, 1, 2, 3));
      expect(s.bWhileAway).toEqual(s.firstB);
      expect(s.rejoinedA).toEqual(s.firstA);
      expect(s.stillB).toEqual(s.firstB);
      expect(s.describedInstances).toEqual(['instance-1', 'instance-2']);
    });

    describe('AdminClient', () => {
      const topic = `${line.prefix}-admin`;
      const group = `${line.prefix}-admin-g`;
      const step = (name: string) => {
        const steps = scenario(line, 'admin').steps;
        if (!(name in steps)) throw new Error(`admin step ${name} did not run: ${JSON.stringify(steps)}`);
        return steps[name];
      };
      const partitions = (n: number) =>
        Array.from({ length: n }, (_, i) => ({
          partition: i,
          leader: broker.context.identity.nodeId,
          replicas: [broker.context.identity.nodeId],
          isr: [broker.context.identity.nodeId],
        }));

      it('creates a topic, and reports an existing one as TopicExistsException', async () => {
        expect(step('createTopics')).toBe('created');
        expect(step('createTopicsExisting')).toMatchObject({ error: 'TopicExistsException' });
      });

      it('lists and describes topics', async () => {
        expect(step('listTopics')).toContain(topic);
        expect(step('describeTopics')).toMatchObject({ name: topic, internal: false, partitions: partitions(1) });
        expect(step('describeTopics').topicId).not.toBe('AAAAAAAAAAAAAAAAAAAAAA');
        // The Java admin sends Metadata v12 with TopicId set and Name "": resolved by the id, as Kafka does.
        expect(step('describeTopicsById')).toEqual({ name: topic, partitions: 1 });
      });

      it('adds partitions, and refuses fewer with InvalidPartitionsException', async () => {
        expect(step('createPartitions')).toMatchObject({ name: topic, partitions: partitions(3) });
        expect(step('createPartitionsFewer')).toMatchObject({ error: 'InvalidPartitionsException' });
      });

      it('alters and describes client quotas (AlterClientQuotas, DescribeClientQuotas), a bad key refused', async () => {
        const client = `client-id=${topic}-quota-client`;
        expect(step('clientQuotas')).toEqual({
          client: { [client]: { consumer_byte_rate: 2097152, producer_byte_rate: 1048576 } },
          defaultUser: { 'user=<default>': { request_percentage: 25 } },
          clientAfterRemove: { [client]: { producer_byte_rate: 1048576 } },
          badKey: 'InvalidRequestException',
        });
      });

      it('describes and alters retention.ms (AlterConfigs where the client has it, IncrementalAlterConfigs SET and DELETE)', async () => {
        expect(step('describeConfigs')).toMatchObject({ value: '3600000', source: 'DYNAMIC_TOPIC_CONFIG' });
        if (line.module === 'kafka-3')
          expect(step('alterConfigs')).toMatchObject({ value: '7200000', source: 'DYNAMIC_TOPIC_CONFIG' });
        else expect(step('alterConfigs')).toBe('not in this client');
        expect(step('incrementalAlterConfigsSet')).toMatchObject({ value: '10800000', source: 'DYNAMIC_TOPIC_CONFIG' });
        expect(step('incrementalAlterConfigsDelete')).toMatchObject({ value: '604800000', source: 'DEFAULT_CONFIG' });
      });

      it('deletes records: the low watermark and the earliest offset move, a consumer below it resets', async () => {
        expect(step('deleteRecords')).toEqual({
          lowWatermark: 4,
          earliest: 4,
          latest: 10,
          maxTimestamp: 9,
          consumedFromZero: [4, 5, 6, 7, 8, 9],
        });
      });

      it('lists, describes, reads the offsets of and deletes consumer groups', async () => {
        expect(step('describeConsumerGroupsActive')).toMatchObject({
          groupId: group,
          state: 'Stable',
          simple: false,
          assignor: 'range',
          coordinator: broker.context.identity.nodeId,
          members: [
            {
              clientId: `${line.prefix}-consumer`,
              hasMemberId: true,
              assignment: [0, 1, 2].map((p) => `${topic}-${p}`),
            },
          ],
        });
        expect(step('describeConsumerGroupsEmpty')).toMatchObject({ groupId: group, state: 'Empty', members: [] });
        const committed = { [`${topic}-0`]: { offset: 7, metadata: 'from the admin scenario' } };
        expect(step('alterConsumerGroupOffsets')).toEqual({
          ...committed,
          [`${topic}-1`]: { offset: 0, metadata: 'altered' },
        });
        expect(step('deleteConsumerGroupOffsets')).toEqual(committed);
        expect(step('listConsumerGroups')).toMatchObject({ [group]: 'Empty', [`${line.prefix}-group-g`]: 'Empty' });
        expect(step('listConsumerGroupOffsets')).toEqual(committed);
        expect(step('deleteConsumerGroups').groupsAfter).not.toContain(group);
        expect(step('deleteConsumerGroups').groupsAfter).toContain(`${line.prefix}-group-g`);
        expect(step('deleteConsumerGroupsMissing')).toMatchObject({ error: 'GroupIdNotFoundException' });
      });

      it('describes broker configs', async () => {
        expect(step('describeBrokerConfigs')).toMatchObject({ 'message.max.bytes': '1048588', 'num.partitions': '1' });
      });

      it('describes the cluster as this one broker', async () => {
        const node = { id: broker.context.identity.nodeId, host: '127.0.0.1', port: broker.port };
        expect(step('describeCluster')).toEqual({
          clusterId: broker.context.identity.clusterId,
          controller: node,
          nodes: [node],
        });
      });

      it('deletes topics, and reports a missing one as UnknownTopicOrPartitionException', async () => {
        expect(step('deleteTopics').topicsAfter).not.toContain(topic);
        expect(step('deleteTopics').topicsAfter).toContain(`${line.prefix}-group`);
        expect(step('deleteTopicsMissing')).toMatchObject({ error: 'UnknownTopicOrPartitionException' });
      });
    });

    // Transactions (version 2 for 4.x, 1 for 3.x: transactions-v2-java.test.ts shows which):
    // committed data is read once by read_committed, the aborted and the fenced zombie's records
    // only by read_uncommitted, no control record ever surfaces as a record, both isolation levels
    // reach the same end (every transaction closed), and the offsets sent in the committed
    // transaction reach the group.
    it('commits, aborts, sends offsets and fences a zombie transactional producer', async () => {
      const t = scenario(line, 'transactions');
      const committed = [0, 1].flatMap((p) => [0, 1, 2].map((i) => `committed-${p}-${i}`));
      expect(t.zombieCommit).toBe('ProducerFencedException');
      expect(t.readCommitted.values).toEqual([...committed, 'second-1'].sort());
      expect(t.readUncommitted.values).toEqual([...committed, 'aborted-0', 'aborted-1', 'second-1', 'zombie-0'].sort());
      for (const read of [t.readCommitted, t.readUncommitted]) {
        expect(read.position0).toBe(read.end0);
        expect(read.position1).toBe(read.end1);
      }
      expect(t.readCommitted.end0).toBe(t.readUncommitted.end0);
      expect({ offset: t.groupOffset, metadata: t.groupMetadata }).toEqual({ offset: 42, metadata: 'txn-meta' });
      expect(t.describedState).toBe('CompleteCommit');
      expect(t.describedEpoch).toBeGreaterThanOrEqual(1);
      expect(t.describedPartitions).toBe(0);
    });

    it('exits 0 with every scenario ok', async () => {
      const all = results.get(line.module)!;
      expect([...all.values()].filter((s) => !s.ok).map((s) => `${s.scenario}: ${s.error}`)).toEqual([]);
    });
  });

  it('advertises exactly the APIs that have a handler', async () => {
    const handlers = createHandlers();
    const advertised = apiVersionsBody(handlers).apiKeys.map((k) => k.apiKey);
    expect(advertised).toEqual([...handlers.keys()].sort((a, b) => a - b));
  });
});
