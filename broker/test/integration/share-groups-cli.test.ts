// kafka-share-groups.sh (Kafka 4.1.1's ShareGroupCommand, run from its jars) against minnow: --list,
// --list --state, --describe (start offsets), --describe --members, --describe --state, --delete and
// --delete-offsets refused while the group has a member and working once it is empty. The steps
// (share-groups-cli/scenario.ts) print what Kafka 4.1.1 printed for them (kafka-4.1.1-output.ts,
// recorded by share-groups-cli/record-kafka.ts), line for line.
import * as path from 'node:path';
import type { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { startTestBroker, tempDir } from './helpers';
import { KAFKA_4_1_1_OUTPUT } from './share-groups-cli/kafka-4.1.1-output';
import { normalize, runShareGroupsCli, type Step } from './share-groups-cli/scenario';

describeWithTools('java', 'mvn')('kafka-share-groups.sh 4.1.1 against minnow', () => {
  let broker: RunningBroker;
  const tmp = tempDir();
  let steps: Step[] = [];
  let bootstrap = '';

  beforeAll(async () => {
    broker = await startTestBroker(`sqlite://${path.join(tmp.dir, 'share-cli.db')}`, {
      config: { groupInitialRebalanceDelayMs: 0 },
    });
    bootstrap = `127.0.0.1:${broker.port}`;
    steps = await runShareGroupsCli(bootstrap);
  }, 300_000);
  afterAll(async () => {
    await broker?.stop();
    tmp.cleanup();
  });

  it('runs every step Kafka ran', () => {
    expect(steps.map((s) => s.args.slice(2).join(' '))).toEqual(KAFKA_4_1_1_OUTPUT.map((s) => s.args));
  });

  it.each(KAFKA_4_1_1_OUTPUT.map((k, i) => [k.args, i] as const))('prints what Kafka 4.1.1 prints for %s', (_a, i) => {
    const step = steps[i]!;
    const kafka = KAFKA_4_1_1_OUTPUT[i]!;
    expect({ code: step.code, out: normalize(step.out, bootstrap) }).toEqual({ code: kafka.code, out: kafka.out });
  });
});
