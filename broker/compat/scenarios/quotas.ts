// Client quotas beside Kafka: KIP-599 controller_mutation_rate on CreateTopics, CreatePartitions
// and DeleteTopics. The quota is set on the client id every scenario uses and removed at the end
// (this scenario runs last). Each throttled step goes on a fresh connection: the one that got a
// throttle is muted for it (KIP-219) on both brokers, and waiting would refill the bucket.
import { ApiKey } from '../../src/protocol/api-keys';
import { requestHeaderVersion, responseHeaderVersion } from '../../src/protocol/headers';
import { ZERO_UUID } from '../../src/protocol/uuid';
import { encodeBody, rawFrame, type Scenario, type ScenarioContext } from '../scenario';

const CLIENT_ID = { entityType: 'client-id', entityName: 'minnow-compat' };
const WAIT_LIMIT_MS = 30_000;

const topic = (name: string, numPartitions: number) => ({
  name,
  numPartitions,
  replicationFactor: 1,
  assignments: [],
  configs: [],
});

/** One request on its own connection, recorded under `step`. */
function fresh(ctx: ScenarioContext, step: string, apiKey: number, apiVersion: number, body: unknown) {
  const frame = rawFrame(
    apiKey,
    apiVersion,
    encodeBody(apiKey, apiVersion, body),
    requestHeaderVersion(apiKey, apiVersion) >= 2,
  );
  return ctx.sendRaw(step, frame, {
    apiKey,
    apiVersion,
    headerVersion: responseHeaderVersion(apiKey, apiVersion) >= 1 ? 1 : 0,
  });
}

/** Sets (rate) or removes (undefined) the quota and waits until DescribeClientQuotas shows it. */
async function setRate(ctx: ScenarioContext, rate: number | undefined): Promise<void> {
  await ctx.quiet(ApiKey.AlterClientQuotas, 1, {
    entries: [
      {
        entity: [CLIENT_ID],
        ops: [{ key: 'controller_mutation_rate', value: rate ?? 0, remove: rate === undefined }],
      },
    ],
    validateOnly: false,
  });
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const d = await ctx.quiet(ApiKey.DescribeClientQuotas, 1, {
      components: [{ entityType: 'client-id', matchType: 0, match: 'minnow-compat' }],
      strict: true,
    });
    const shown = d.entries?.[0]?.values?.find((v: { key: string }) => v.key === 'controller_mutation_rate');
    if ((shown?.value as number | undefined) === rate) return;
    if (Date.now() > deadline)
      throw new Error(`${ctx.target}: controller_mutation_rate=${rate} not in force after ${WAIT_LIMIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export const quotaScenarios: Scenario[] = [
  {
    name: 'controller-mutation-rate',
    about:
      'KIP-599: controller_mutation_rate=1 (11 tokens): CreateTopics within and over it, CreatePartitions and DeleteTopics over it, CreateTopics v5 (permissive)',
    async run(ctx) {
      await setRate(ctx, 1);
      try {
        await fresh(ctx, 'CreateTopics v7 of 11 partitions (the whole bucket)', ApiKey.CreateTopics, 7, {
          topics: [topic('mq-a', 11)],
          timeoutMs: 30_000,
          validateOnly: false,
        });
        await fresh(ctx, 'CreateTopics v7 of 10 more (overdraws the bucket)', ApiKey.CreateTopics, 7, {
          topics: [topic('mq-b', 10)],
          timeoutMs: 30_000,
          validateOnly: false,
        });
        await fresh(ctx, 'CreateTopics v7 while below zero', ApiKey.CreateTopics, 7, {
          topics: [topic('mq-c', 1)],
          timeoutMs: 30_000,
          validateOnly: false,
        });
        await fresh(ctx, 'CreatePartitions v3 while below zero', ApiKey.CreatePartitions, 3, {
          topics: [{ name: 'mq-a', count: 12, assignments: null }],
          timeoutMs: 30_000,
          validateOnly: false,
        });
        await fresh(ctx, 'DeleteTopics v6 while below zero', ApiKey.DeleteTopics, 6, {
          topics: [{ name: 'mq-b', topicId: ZERO_UUID }],
          timeoutMs: 30_000,
        });
        await fresh(ctx, 'CreateTopics v5 while below zero (served, throttled)', ApiKey.CreateTopics, 5, {
          topics: [topic('mq-d', 1)],
          timeoutMs: 30_000,
          validateOnly: false,
        });
      } finally {
        await setRate(ctx, undefined);
      }
    },
  },
];
