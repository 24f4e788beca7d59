// Kafka's kafka-features describe (Admin.describeFeatures, read from ApiVersions) against minnow:
// it shows transaction.version, supported 0-2 and finalized at TRANSACTION_VERSION (2 by default,
// as on a new Kafka 4 cluster), the level Java 4.x producers read to choose transaction version 2.
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { kafkaCli, kafkaJars } from '../support/kafka-cli';
import { startTestBroker } from './helpers';

describeWithTools('java', 'mvn')("Kafka's kafka-features describe", () => {
  const brokers: RunningBroker[] = [];
  beforeAll(() => kafkaJars(), 300_000);
  afterAll(() => Promise.all(brokers.map((b) => b.stop())));

  const describeOn = async (transactionVersion?: number) => {
    const broker = await startTestBroker('memory://', {
      config: transactionVersion === undefined ? {} : { transactionVersion },
    });
    brokers.push(broker);
    const r = await kafkaCli('kafka-features', ['--bootstrap-server', `127.0.0.1:${broker.port}`, 'describe']);
    expect(r.code).toBe(0);
    return r.out.trim().split('\n');
  };

  it('shows transaction.version supported 0-2, finalized at 2 by default', async () => {
    const lines = await describeOn();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Feature: transaction\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 2\s+FinalizedVersionLevel: 2\s+Epoch: \d+$/,
    );
  });

  it('shows the level TRANSACTION_VERSION sets', async () => {
    const [line] = await describeOn(1);
    expect(line).toMatch(/FinalizedVersionLevel: 1\s/);
  });
});
