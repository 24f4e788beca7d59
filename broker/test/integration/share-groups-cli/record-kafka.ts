// Records what Kafka 4.1.1 prints for scenario.ts's steps (kafka-4.1.1-output.ts):
//   npx tsx broker/test/integration/share-groups-cli/record-kafka.ts [BOOTSTRAP]
// With no BOOTSTRAP it starts the oracle (tools/kafka-oracle) and enables share groups, which Kafka
// 4.1 ships off: `kafka-features upgrade --feature share.version=1`. Prints the normalized output as
// JSON (paste it into kafka-4.1.1-output.ts).
import { startKafka, type RunningKafka } from '../../../tools/kafka-oracle/kafka';
import { kafkaCli } from '../../support/kafka-cli';
import { normalize, runShareGroupsCli } from './scenario';

async function main(): Promise<void> {
  let kafka: RunningKafka | undefined;
  let bootstrap = process.argv[2];
  if (!bootstrap) {
    kafka = await startKafka({ heap: '384m', log: (l) => console.error(l) });
    bootstrap = `127.0.0.1:${kafka.port}`;
    const up = await kafkaCli('kafka-features', [
      '--bootstrap-server',
      bootstrap,
      'upgrade',
      '--feature',
      'share.version=1',
    ]);
    if (up.code !== 0) throw new Error(`enabling share groups failed: ${up.out}${up.err}`);
  }
  try {
    const steps = await runShareGroupsCli(bootstrap);
    const out = steps.map((s) => ({ args: s.args.slice(2).join(' '), code: s.code, out: normalize(s.out, bootstrap) }));
    console.log(JSON.stringify(out, null, 2));
  } finally {
    await kafka?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
