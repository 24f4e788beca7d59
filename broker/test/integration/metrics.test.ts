// GET /metrics (MINNOW_METRICS_LISTENER) against real clients: kafkajs and kcat produce and
// consume, a group commits leaving lag, and the scraped text says what happened, read with a
// Prometheus text parser. Plus: off by default (no port opened), and the endpoint neither keeps a
// stopping broker alive nor outlives it.
import * as fs from 'node:fs';
import * as http from 'node:http';
import { Kafka, logLevel } from 'kafkajs';
import { KafkaClient } from '../../src/client/client';
import { KafkaClientError } from '../../src/client/errors';
import { ErrorCode } from '../../src/protocol/error-codes';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { RunningBroker } from '../../src/server/broker';
import { ScrapedMetrics } from '../support/prometheus-text';
import { describeWithTools } from '../support/external-tools';
import { kcat, setOffsets, startTestBroker, storageUrlFor, tempDir, engineOf } from './helpers';
import { startChildBroker } from './serve-child';

function get(port: number, path: string, agent?: http.Agent): Promise<{ status: number; type?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer from /metrics in 10 s')));
    req.on('error', reject);
  });
}

async function scrape(broker: RunningBroker): Promise<ScrapedMetrics> {
  const r = await get(broker.metricsEndpoint!.port, '/metrics');
  expect(r.status).toBe(200);
  return new ScrapedMetrics(r.body);
}

/** Record-batch bytes and records stored in topic/partition (read back from storage). */
function stored(broker: RunningBroker, topic: string, partitions: number): { bytes: number; records: number } {
  let bytes = 0;
  let records = 0;
  for (let p = 0; p < partitions; p++) {
    for (const b of engineOf(broker).read(topic, p, 0, 1 << 30).batches) {
      bytes += b.length;
      records += b.readInt32BE(57); // recordsCount, the last field of the v2 batch header
    }
  }
  return { bytes, records };
}

describeWithTools('kcat')('metrics endpoint with kafkajs and kcat', () => {
  const tmp = tempDir();
  let broker: RunningBroker;
  let kafka: Kafka;
  const TOPIC = 'metered';

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor('sqlite', tmp.dir), {
      // Groups form at once (each group here has one member: it waited the 3 s initial delay).
      config: {
        metricsListener: { host: '127.0.0.1', port: 0 },
        autoCreateTopics: false,
        groupInitialRebalanceDelayMs: 0,
      },
    });
    kafka = new Kafka({ clientId: 'metrics-test', brokers: [`127.0.0.1:${broker.port}`], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] });
    await admin.disconnect();
  });
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  it('serves Prometheus text on its own port, 404 elsewhere', async () => {
    expect(broker.metricsEndpoint!.port).not.toBe(broker.port);
    const r = await get(broker.metricsEndpoint!.port, '/metrics');
    expect(r.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await get(broker.metricsEndpoint!.port, '/')).status).toBe(404);
    const s = new ScrapedMetrics(r.body);
    expect(s.type('minnow_requests_total')).toBe('counter');
    expect(s.value('minnow_database_bytes')).toBeGreaterThan(0);
    expect(s.value('minnow_data_volume_bytes')).toBeGreaterThan(0);
    expect(s.value('minnow_data_volume_free_bytes')).toBeGreaterThan(0);
    expect(s.value('minnow_topics')).toBe(1);
    expect(s.value('minnow_partitions')).toBe(2);
    expect(s.value('process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts what kafkajs and kcat produce and consume', async () => {
    const s0 = await scrape(broker);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: TOPIC,
      messages: Array.from({ length: 10 }, (_, i) => ({ value: `kafkajs-${i}`, partition: i % 2 })),
    });
    await producer.disconnect();
    const afterKafkajs = stored(broker, TOPIC, 2);
    const s1 = await scrape(broker);
    // One send is one Produce request carrying both partitions.
    expect(
      s1.value('minnow_requests_total', { api: 'Produce' })! - s0.value('minnow_requests_total', { api: 'Produce' })!,
    ).toBe(1);
    expect(s1.value('minnow_records_in_total')).toBe(10);
    expect(s1.value('minnow_bytes_in_total')).toBe(afterKafkajs.bytes);

    const lines = Array.from({ length: 20 }, (_, i) => `kcat-${i}`);
    const p = await kcat(broker, ['-P', '-t', TOPIC, '-p', '0'], { input: lines.join('\n') + '\n' });
    expect(p.code).toBe(0);
    const all = stored(broker, TOPIC, 2);
    expect(all.records).toBe(30);
    const s2 = await scrape(broker);
    expect(s2.value('minnow_records_in_total')).toBe(30);
    expect(s2.value('minnow_bytes_in_total')).toBe(all.bytes);

    // kcat reads both partitions from the start to the end: every stored byte goes out at least once.
    const c = await kcat(broker, ['-C', '-t', TOPIC, '-o', 'beginning', '-e', '-f', '%s\n']);
    expect(c.code).toBe(0);
    expect(c.stdout.trim().split('\n')).toHaveLength(30);
    const s3 = await scrape(broker);
    expect(s3.value('minnow_bytes_out_total')).toBeGreaterThanOrEqual(all.bytes);
    expect(s3.value('minnow_requests_total', { api: 'Fetch' })).toBeGreaterThan(0);
    const out3 = s3.value('minnow_bytes_out_total')!;

    // kafkajs consumes it too: at least the same bytes again.
    const consumer = kafka.consumer({ groupId: 'metrics-reader' });
    await consumer.connect();
    const seen: string[] = [];
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${seen.length} of 30 records in 20 s`)), 20_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(String(message.value));
          if (seen.length === 30) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    await consumer.disconnect(); // commits what it consumed: this group has no lag
    const s4 = await scrape(broker);
    expect(s4.value('minnow_bytes_out_total')! - out3).toBeGreaterThanOrEqual(all.bytes);
    expect(s4.value('minnow_consumer_group_lag', { group: 'metrics-reader' })).toBe(0);
  });

  it('counts the open client connections', async () => {
    const before = (await scrape(broker)).value('minnow_connections')!;
    const producer = kafka.producer();
    await producer.connect();
    try {
      expect((await scrape(broker)).value('minnow_connections')).toBeGreaterThan(before);
    } finally {
      await producer.disconnect();
    }
  });

  it('reports the lag a committed offset leaves, as the clients compute it', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await setOffsets(kafka, 'behind', TOPIC, [
        { partition: 0, offset: '4' },
        { partition: 1, offset: '1' },
      ]);
      const ends = await admin.fetchTopicOffsets(TOPIC);
      const [committed] = await admin.fetchOffsets({ groupId: 'behind', topics: [TOPIC] });
      const lag = committed!.partitions
        .map((p) => Number(ends.find((e) => e.partition === p.partition)!.high) - Number(p.offset))
        .reduce((a, b) => a + b, 0);
      expect(lag).toBe(30 - 5); // both partitions together hold 30 records
      const s = await scrape(broker);
      expect(s.type('minnow_consumer_group_lag')).toBe('gauge');
      expect(s.value('minnow_consumer_group_lag', { group: 'behind' })).toBe(lag);
      expect(s.value('minnow_consumer_group_lag_max')).toBe(lag);
    } finally {
      await admin.disconnect();
    }
  });

  it('counts error responses by API and Kafka error name', async () => {
    const s0 = await scrape(broker);
    const named = (s: ScrapedMetrics, api: string, error: string) =>
      s.value('minnow_request_errors_total', { api, error }) ?? 0;
    // A Produce to a topic that does not exist (auto-create is off): UNKNOWN_TOPIC_OR_PARTITION.
    const client = new KafkaClient(`127.0.0.1:${broker.port}`);
    try {
      const leader = (await client.topic(TOPIC)).partitions[0]!.leader;
      const batch = encodeRecordBatch({ records: [{ value: Buffer.from('lost') }] });
      const refused = client.produce('no-such-topic', 0, leader, batch, 1);
      await expect(refused).rejects.toThrow(KafkaClientError);
      await expect(refused).rejects.toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
    } finally {
      client.close();
    }
    // kcat asking for that topic's metadata gets it in the Metadata response.
    await kcat(broker, ['-L', '-t', 'no-such-topic']);
    const s1 = await scrape(broker);
    expect(
      named(s1, 'Produce', 'UNKNOWN_TOPIC_OR_PARTITION') - named(s0, 'Produce', 'UNKNOWN_TOPIC_OR_PARTITION'),
    ).toBe(1);
    expect(named(s1, 'Metadata', 'UNKNOWN_TOPIC_OR_PARTITION')).toBeGreaterThan(
      named(s0, 'Metadata', 'UNKNOWN_TOPIC_OR_PARTITION'),
    );
    expect(s1.value('minnow_records_in_total')).toBe(s0.value('minnow_records_in_total')); // nothing stored
  });
});

/** Listening TCP sockets of process `pid` (its fds matched against /proc/<pid>/net/tcp{,6} in LISTEN). */
function listeningSockets(pid: number): number {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  let n = 0;
  for (const table of ['tcp', 'tcp6']) {
    const rows = fs.readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
    for (const row of rows) {
      const cols = row.trim().split(/\s+/);
      if (cols[3] === '0A' && inodes.has(cols[9]!)) n++; // 0A: TCP_LISTEN
    }
  }
  return n;
}

describe('metrics endpoint of `minnow serve`', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('is off by default: the broker opens its Kafka listener and no other port', async () => {
    const broker = await startChildBroker(['--storage', `sqlite://${tmp.dir}/off.db`]);
    try {
      expect(broker.stderr()).not.toContain('"metrics"');
      expect(listeningSockets(broker.pid)).toBe(1);
    } finally {
      expect(await broker.stop()).toBe(0);
    }
  });

  it('with --metrics-listener opens one more port, which a kept-alive scraper does not keep open past SIGTERM', async () => {
    const broker = await startChildBroker([
      '--storage',
      `sqlite://${tmp.dir}/on.db`,
      '--metrics-listener',
      '127.0.0.1:0',
    ]);
    const agent = new http.Agent({ keepAlive: true });
    try {
      expect(listeningSockets(broker.pid)).toBe(2);
      const port = Number(/"metrics":"http:\/\/127\.0\.0\.1:(\d+)\/metrics"/.exec(broker.stderr())![1]);
      const r = await get(port, '/metrics', agent);
      expect(r.status).toBe(200);
      expect(new ScrapedMetrics(r.body).value('minnow_database_bytes')).toBeGreaterThan(0);
      // The scraper's connection stays open (keep-alive); SIGTERM still ends the broker with 0,
      // well before stop()'s SIGKILL after 15 s (which would give null), and the port is closed.
      expect(await broker.stop()).toBe(0);
      await expect(get(port, '/metrics')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      agent.destroy();
      await broker.stop();
    }
  });

  it('refuses a bad MINNOW_METRICS_LISTENER at start, saying what it expects', async () => {
    await expect(
      startChildBroker(['--storage', `sqlite://${tmp.dir}/bad.db`], { MINNOW_METRICS_LISTENER: '9464' }),
    ).rejects.toThrow(/MINNOW_METRICS_LISTENER="9464" is not valid: expected HOST:PORT/);
  });
});
