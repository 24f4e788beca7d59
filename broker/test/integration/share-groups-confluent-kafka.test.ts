// KIP-932 share groups with librdkafka's share consumer (confluent-kafka 2.16's ShareConsumer, the
// PyPI wheel of python/requirements-pypi.txt): implicit and explicit acknowledgement (ACCEPT,
// RELEASE, REJECT), two members sharing one partition, commit_sync, commit_async with its callback,
// and close() carrying the last acknowledgements. share-groups-java.test.ts does the same with the
// Java KafkaShareConsumer; docs/groups.md tells how librdkafka's own share tests (0170-0186) fare.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { run, startTestBroker, tempDir, lastJson } from './helpers';
import { venvPython } from './python-venv';

const REQUIREMENTS = path.join(__dirname, 'python', 'requirements-pypi.txt');
const script = (name: string) => path.join(__dirname, 'python', name);
const COUNT = 30;

/** [partition, offset, value, delivery count] as ck_share_consumer.py prints a record. */
type Row = [number, number, string, number];

describeWithTools('python3-venv')("librdkafka's share consumer (confluent-kafka ShareConsumer)", () => {
  let python: string;
  let broker: RunningBroker;
  const tmp = tempDir();
  const bootstrap = () => `127.0.0.1:${broker.port}`;
  const py = async (name: string, args: string[], timeoutMs = 60_000) =>
    lastJson(name, await run(python, [script(name), ...args], { timeoutMs }));
  /**
   * A topic of COUNT records "<topic> i", each in a batch of its own (a share fetch acquires whole
   * batches: max.poll.records is a soft limit, as on Kafka), then one scenario of ck_share_consumer.py.
   */
  const scenario = async (name: string) => {
    const topic = `ck-share-${name}`;
    const sent = await py('ck_produce.py', [bootstrap(), topic, topic, String(COUNT), 'none', 'one-per-batch']);
    expect(sent.errors).toEqual([]);
    const out = await py('ck_share_consumer.py', [bootstrap(), topic, `${topic}-group`, name, String(COUNT), '40']);
    // Every run logs librdkafka's "Preview" warning; anything else at WARNING or worse is a finding.
    const problems = (out.logs as string[]).filter((l) => /^(WARNING|ERROR|CRITICAL) /.test(l) && !/Preview/.test(l));
    expect({ errors: out.errors, logs: problems }).toEqual({ errors: [], logs: [] });
    return { out, values: Array.from({ length: COUNT }, (_, i) => `${topic} ${i}`) };
  };
  const offsets = (rows: Row[]) => rows.map((r) => r[1]);
  const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

  beforeAll(async () => {
    python = await venvPython(REQUIREMENTS);
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'share.db')}`, {
      config: { groupInitialRebalanceDelayMs: 0 },
    });
  }, 360_000);
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it('implicit mode: a member reads every record once and commit_sync acknowledges them', async () => {
    const { out, values } = await scenario('implicit');
    expect((out.received as Row[]).map((r) => r[2])).toEqual(values);
    expect((out.received as Row[]).every((r) => r[3] === 1)).toBe(true);
    expect(out.commit_sync).toEqual([[0, null]]);
  }, 90_000);

  it('explicit mode: a released record comes back with delivery count 2, accepted and rejected ones never', async () => {
    const { out } = await scenario('explicit');
    const rows = out.received as Row[];
    const first = rows.slice(0, COUNT);
    expect(offsets(first)).toEqual(upTo(COUNT));
    expect(first.every((r) => r[3] === 1)).toBe(true);
    // Offsets 1, 4, 7 ... were released at their first delivery: each came back once, counted 2.
    const released = upTo(COUNT).filter((o) => o % 3 === 1);
    expect(rows.slice(COUNT).map((r) => [r[1], r[3]])).toEqual(released.map((o) => [o, 2]));
    expect(out.again).toEqual([]);
    expect(out.commit_sync).toEqual([[0, null]]);
  }, 90_000);

  it('two members share one partition: each record goes to one of them, once', async () => {
    const { out, values } = await scenario('shared');
    const [a, b] = out.received as [Row[], Row[]];
    // Each fetch acquires 5 records (max.poll.records) and the members poll in turns.
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect([...a, ...b].map((r) => r[2]).sort()).toEqual([...values].sort());
    expect([...a, ...b].every((r) => r[3] === 1)).toBe(true);
  }, 90_000);

  it('commit_async: the acknowledgement commit callback reports every record without error', async () => {
    const { out } = await scenario('async');
    expect(offsets(out.received as Row[])).toEqual(upTo(COUNT));
    const callbacks = out.callbacks as Array<{ offsets: Array<[number, number[]]>; error: string | null }>;
    expect(callbacks.every((c) => c.error === null)).toBe(true);
    expect(callbacks.flatMap((c) => c.offsets.flatMap(([, o]) => o)).sort((x, y) => x - y)).toEqual(upTo(COUNT));
  }, 90_000);

  // Kafka 4.1.1 answers a group's first ShareFetch over two partitions with the records of one of
  // them and the next with the other's (share-fetch-order.ts); librdkafka's 0179 expects it.
  it('a first poll over two partitions gets one partition, the next poll the other', async () => {
    const out = await py('ck_share_polls.py', [bootstrap(), 'ck-share-polls', 'ck-share-polls-group', '50', '40']);
    const problems = (out.logs as string[]).filter((l) => /^(WARNING|ERROR|CRITICAL) /.test(l) && !/Preview/.test(l));
    expect({ errors: out.errors, logs: problems }).toEqual({ errors: [], logs: [] });
    // Which partition comes first follows librdkafka's order of the partitions in its request (it
    // varies from run to run, on Kafka too): one partition's 50 records a poll, then the other's.
    const polls = out.polls as Array<{ count: number; partitions: number[] }>;
    expect(polls.map((p) => ({ count: p.count, partitionCount: p.partitions.length }))).toEqual([
      { count: 50, partitionCount: 1 },
      { count: 50, partitionCount: 1 },
    ]);
    expect(polls.flatMap((p) => p.partitions).sort()).toEqual([0, 1]);
  }, 90_000);

  // librdkafka sends its leave heartbeat and the ShareAcknowledge that closes its share session at
  // the same instant: a broker that ended the session at the leave answered SHARE_SESSION_NOT_FOUND
  // whenever the leave came first, and those records went to the next member (a race, so several
  // members close here; share-leave-then-close.test.ts has the broker-side steps in order).
  it('close() delivers the last acknowledgements: members that come and go get each record once', async () => {
    const { out, values } = await scenario('close');
    const rounds = out.received as Row[][];
    expect(rounds.length).toBeGreaterThanOrEqual(COUNT / 6);
    expect(rounds.flat().map((r) => [r[2], r[3]])).toEqual(values.map((v) => [v, 1]));
    expect(out.after_close).toEqual([]);
  }, 90_000);
});
