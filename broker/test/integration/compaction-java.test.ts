// Compaction (issue 17) with the Java client (kafka-clients 4.x and 3.9): an idempotent lz4
// producer's keyed updates and tombstones, compacted by the broker, read from the beginning with
// 1 KiB fetches: exactly the latest record per key at its original offset, the consumer's position
// reaching the log end over offset gaps and the empty batch kept for the producer's sequences
// (broker/test/java CompactionScenario).
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { startTestBroker, tempDir } from './helpers';
import { buildDriver, LINES, runDriverScenario } from './java-driver';

const CLEANER: object = { logCleanerBackoffMs: 100 };

describeWithTools('java', 'mvn')('compaction with the Java client', () => {
  let broker: RunningBroker;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'java.db')}`, { config: { ...CLEANER } });
    await buildDriver();
  }, 330_000);
  afterAll(async () => {
    await broker.stop();
    tmp.cleanup();
  });

  it.each(LINES.map((l) => [l.module, l] as const))(
    '%s reads the compacted view',
    async (_module, line) => {
      const { result: out, stderr } = await runDriverScenario(
        line,
        broker.port,
        `c${line.prefix}`,
        'compaction',
        120_000,
      );
      if (!out?.ok) throw new Error(`java compaction scenario: ${JSON.stringify(out)} ${stderr.slice(-3000)}`);
      // 20 keys x 10 rounds (offsets 0-199), each key again (200-219), tombstones of k0 and k1
      // (220, 221), the sentinel (222).
      const want = [
        ...Array.from({ length: 18 }, (_, i) => ({ offset: 202 + i, key: `k${i + 2}`, value: `k${i + 2}:${202 + i}` })),
        { offset: 220, key: 'k0', value: '<null>' },
        { offset: 221, key: 'k1', value: '<null>' },
        { offset: 222, key: 'sentinel', value: 'end' },
      ];
      expect(out.records).toEqual(want);
      expect(out).toMatchObject({ position: 223, beginningOffset: 0, endOffset: 223 });
      // The first producer's last batch kept, emptied: the consumer stepped over it.
      const topic = `c${line.prefix}-compaction`;
      const counts = (await broker.context.storage.read(topic, 0, 0, 1 << 30)).batches.map((b) => b.readInt32BE(57));
      expect(counts).toContain(0);
    },
    150_000,
  );
});
