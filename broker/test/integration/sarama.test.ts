// Go clients on IBM/sarama (broker/test/go, built with `go build -modfile=...` once per content,
// go-client.ts), each with sarama's default config.Version of its release:
// - sarama 1.40.1 (V1_0_0_0: OffsetCommit v1, OffsetFetch v1, DescribeConfigs v0, Produce v3,
//   Fetch v4), the last release before 1.41 raised the default to V2_1_0_0;
// - sarama 1.61.1 (V2_8_0_0), a current one;
// both produce, consume in a group and commit, then resume from the commit after a broker restart;
// - sarama 1.27.0 (V0_8_2_0: Produce v0 and Fetch v0 with message format v0, no groups), which
//   minnow refuses (old-message-formats.ts): the client must show Kafka's error, not hang.
// Skipped when `go` is not on PATH (see ../support/external-tools.ts).
//
// What sarama writes as a batch's MaxTimestamp: before 1.45.1 (IBM/sarama#3108) it leaves it
// unset, which encodes as -1 (seen here with 1.40.1); Kafka recomputes it from the records on append.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { goClient } from './go-client';
import { run, RunResult, startTestBroker, tempDir } from './helpers';

const describeWithGo = describeWithTools('go');

interface Client {
  name: string;
  /** The go.mod that pins this sarama (the module proxy serves it; go.sum is committed). */
  modfile: string;
  /** sarama's default config.Version in that release. */
  defaultVersion: string;
}

const CLIENTS: Client[] = [
  { name: 'sarama 1.40.1', modfile: 'go.sarama-1.40.1.mod', defaultVersion: '1.0.0' },
  { name: 'sarama 1.61.1', modfile: 'go.mod', defaultVersion: '2.8.0' },
];
const ANCIENT: Client = { name: 'sarama 1.27.0', modfile: 'go.sarama-1.27.0.mod', defaultVersion: '0.8.2.0' };

const BUILD_TIMEOUT_MS = 300_000;
/** Groups form at once: each consume run is its group's only member (each waited the 3 s initial delay). */
const NO_DELAY = { config: { groupInitialRebalanceDelayMs: 0 } };

function parse(r: RunResult, what: string): any {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim()}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/** Finds (or builds) the client, starts a broker, and runs subcommands against it. */
function saramaFixture(client: Client) {
  const tmp = tempDir('minnow-sarama-');
  const url = `sqlite://${path.join(tmp.dir, 'sarama.db')}`;
  let bin = '';
  const f = {
    url,
    broker: undefined as unknown as RunningBroker,
    /** Runs a subcommand; its result, or its failure as a RunResult. */
    run: (args: string[]) =>
      run(bin, [args[0]!, '-brokers', `127.0.0.1:${f.broker.port}`, '-timeout', '25s', ...args.slice(1)], {
        timeoutMs: 40_000,
      }),
    sarama: async (args: string[]) => parse(await f.run(args), `sarama-client ${args.join(' ')}`),
  };
  beforeAll(async () => {
    bin = await goClient(client.modfile, BUILD_TIMEOUT_MS);
    f.broker = await startTestBroker(url, NO_DELAY);
  }, BUILD_TIMEOUT_MS + 10_000);
  afterAll(async () => {
    await f.broker?.stop();
    tmp.cleanup();
  });
  return f;
}

describeWithGo.each(CLIENTS)('$name', (client) => {
  const f = saramaFixture(client);
  const sarama = f.sarama;

  it('produces, consumes in a group, commits, and resumes from the commit after a broker restart', async () => {
    await f.broker.context.storage.createTopic('go-orders', 1, {});
    const produced = await sarama(['produce', '-topic', 'go-orders', '-count', '10', '-prefix', 'order']);
    expect(produced.kafkaVersion).toBe(client.defaultVersion);
    expect(produced.offsets).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    const first = await sarama(['consume', '-topic', 'go-orders', '-group', 'billing', '-count', '4']);
    expect(first.records.map((r: { offset: number }) => r.offset)).toEqual([0, 1, 2, 3]);
    expect(first.committed).toEqual({ 0: 4 });

    await f.broker.stop();
    f.broker = await startTestBroker(f.url, NO_DELAY);

    const second = await sarama(['consume', '-topic', 'go-orders', '-group', 'billing', '-count', '6']);
    expect(second.records.map((r: { value: string }) => r.value)).toEqual([
      'order-4',
      'order-5',
      'order-6',
      'order-7',
      'order-8',
      'order-9',
    ]);
    expect(second.committed).toEqual({ 0: 10 });
  });

  // sarama before 1.45.1 writes MaxTimestamp -1: this needs the broker to compute a batch's
  // maxTimestamp from its records, as Kafka's LogValidator does.
  it('finds its records by timestamp (ListOffsets)', async () => {
    await f.broker.context.storage.createTopic('go-times', 1, {});
    const before = Date.now() - 1000;
    await sarama(['produce', '-topic', 'go-times', '-count', '3']);
    expect(await sarama(['offset-for-time', '-topic', 'go-times', '-time', String(before)])).toEqual({ offset: 0 });
    expect(await sarama(['offset-for-time', '-topic', 'go-times', '-time', String(Date.now() + 3_600_000)])).toEqual({
      offset: -1,
    });
  });

  // AlterPartitionReassignments (45) closed the connection before; sarama 1.40.1's default
  // version (1.0) is too old for the API, so only current sarama sends it.
  (client.defaultVersion >= '2.4' ? it : it.skip)(
    'reassigns a partition to its current replica (a no-op) and is refused any other',
    async () => {
      await f.broker.context.storage.createTopic('go-reassign', 1, {});
      const out = await sarama(['reassign', '-topic', 'go-reassign']);
      expect(out.same).toBe('ok');
      expect(out.other).toMatch(/Replica assignment is invalid|INVALID_REPLICA_ASSIGNMENT/i);
      expect(out.listed).toBe(0);
    },
  );

  it('describes a topic config, telling overrides from defaults', async () => {
    await f.broker.context.storage.createTopic('go-configs', 1, { 'retention.ms': '3600000' });
    const described = await sarama(['describe-config', '-topic', 'go-configs']);
    const entry = (name: string) => described.configs.find((c: { name: string }) => c.name === name);
    expect(entry('retention.ms')).toEqual({ name: 'retention.ms', value: '3600000', default: false });
    expect(entry('cleanup.policy')).toEqual({ name: 'cleanup.policy', value: 'delete', default: true });
  });
});

describeWithGo(`${ANCIENT.name} (default version ${ANCIENT.defaultVersion}: message format v0)`, () => {
  const f = saramaFixture(ANCIENT);

  it('gets UNSUPPORTED_VERSION from Produce v0 and Fetch v0 as errors it shows, and nothing is stored', async () => {
    await f.broker.context.storage.createTopic('go-old', 1, {});
    const produced = await f.run(['produce', '-topic', 'go-old', '-count', '3']);
    expect(produced.code).toBe(1);
    expect(produced.stderr).toContain('kafka server: The version of API is not supported');
    expect(await f.broker.context.storage.offsets('go-old', 0)).toEqual({ logStartOffset: 0, highWatermark: 0 });

    // ListOffsets v0 finds where to start; the Fetch v0 that follows is refused.
    const read = await f.run(['read', '-topic', 'go-old', '-count', '1']);
    expect(read.code).toBe(1);
    expect(read.stderr).toContain('fetching go-old/0: kafka server: The version of API is not supported');
  });
});
