// bench:peers' quickest path for real: Kafka's own kafka-producer-perf-test (the seed article's
// command, fewer records) and kafka-consumer-perf-test against minnow on SQLite, run and read the
// way broker/bench/peers.ts runs and reads them. Needs a JDK and Maven (the kafka-tools jars are
// resolved once into the kafka-oracle cache); no timing is asserted, only what the tools report.
import { DEFAULT_KAFKA_VERSION, resolveKafkaJars } from '../../tools/kafka-oracle/kafka';
import { bytesPerPayloadByte, diskUsage } from '../../bench/disk-usage';
import { runKafkaTool } from '../../bench/kafka-peer';
import { consumerPerfRow } from '../../bench/kafka-perf-output';
import type { RunningPeer } from '../../bench/peer-brokers';
import { kafkaProducerPerf } from '../../bench/peer-scenarios';
import { Sampler } from '../../bench/proc';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { startTestBroker, storageUrlFor, tempDir } from './helpers';

const RECORDS = 3000;

describeWithTools('java', 'mvn')(
  'bench:peers against minnow (kafka-producer-perf-test, kafka-consumer-perf-test)',
  () => {
    let broker: RunningBroker;
    let tmp: ReturnType<typeof tempDir>;
    let sampler: Sampler;

    beforeAll(async () => {
      // The first run on a machine downloads the jars (~55 MB); later runs find them in the cache.
      await resolveKafkaJars({ kafkaVersion: DEFAULT_KAFKA_VERSION });
      tmp = tempDir('minnow-bench-peers-');
      broker = await startTestBroker(storageUrlFor('sqlite', tmp.dir), {
        config: { groupInitialRebalanceDelayMs: 0 }, // the consumer tool joins a group
      });
      sampler = new Sampler(process.pid, 100);
    }, 300_000);

    afterAll(async () => {
      sampler?.stop();
      await broker?.stop();
      tmp?.cleanup();
    });

    it('runs the seed command (1 KiB records at 7,000/s, acks=all) and reads back every record', async () => {
      const peer: RunningPeer = {
        bootstrap: `127.0.0.1:${broker.port}`,
        pid: process.pid,
        sampler,
        startupMs: NaN,
        idleRssBytes: NaN,
        stopAndMeasure: async () => diskUsage(tmp.dir),
      };
      const produced = await kafkaProducerPerf(peer, DEFAULT_KAFKA_VERSION, 'peers-smoke', RECORDS, 1024, 7000);
      expect(produced).toMatchObject({ tool: 'kafka-producer-perf-test', records: RECORDS, missing: 0 });
      expect(produced.recordsPerSec).toBeGreaterThan(0);
      expect(produced.p50Ms).toBeLessThanOrEqual(produced.p99Ms);
      expect(produced.p99Ms).toBeLessThanOrEqual(produced.p999Ms);

      const consumed = await runKafkaTool(
        'ConsumerPerformance',
        ['--bootstrap-server', peer.bootstrap, '--topic', 'peers-smoke', '--messages', RECORDS, '--timeout', 20_000],
        DEFAULT_KAFKA_VERSION,
      );
      const row = consumerPerfRow(consumed.output);
      expect(row.records).toBe(RECORDS);
      expect(row.mb).toBeCloseTo((RECORDS * 1024) / 2 ** 20, 3);

      // Every acknowledged byte is in the database folder (plus SQLite's pages and minnow's reserve).
      const disk = await peer.stopAndMeasure();
      expect(bytesPerPayloadByte(disk, RECORDS * 1024)).toBeGreaterThan(1);
    }, 120_000);
  },
);
