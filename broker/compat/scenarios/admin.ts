// Topic and config administration: the edge cases an admin client or a typo produces.
import { ApiKey } from '../../src/protocol/api-keys';
import type { Scenario, ScenarioContext } from '../scenario';

const CreateTopics = ApiKey.CreateTopics;
const topic = (
  name: string,
  numPartitions = 1,
  replicationFactor = 1,
  configs: { name: string; value: string | null }[] = [],
) => ({
  name,
  numPartitions,
  replicationFactor,
  assignments: [],
  configs,
});
const create = (ctx: ScenarioContext, step: string, topics: ReturnType<typeof topic>[], validateOnly = false) =>
  ctx.send(step, CreateTopics, 7, { topics, timeoutMs: 30_000, validateOnly });

/** Topic resource type in DescribeConfigs/AlterConfigs (ConfigResource.Type.TOPIC), broker is 4. */
const TOPIC = 2;
const BROKER = 4;

async function brokerId(ctx: ScenarioContext): Promise<string> {
  const md = await ctx.quiet(ApiKey.Metadata, 12, { topics: [], allowAutoTopicCreation: false });
  return String(md.brokers[0].nodeId);
}

export const adminScenarios: Scenario[] = [
  {
    name: 'create-topics',
    about:
      'CreateTopics v7: success, existing, invalid names, partition and replication limits, internal names, validateOnly, bad configs',
    async run(ctx) {
      await create(ctx, 'create new topic with 3 partitions', [topic('ct-a', 3)]);
      await ctx.waitForTopic('ct-a');
      await create(ctx, 'create the same topic again', [topic('ct-a', 3)]);
      await create(ctx, 'same name twice in one request', [topic('ct-dup'), topic('ct-dup')]);
      await create(ctx, 'invalid name with space and !', [topic('bad name!')]);
      await create(ctx, 'empty name', [topic('')]);
      await create(ctx, 'name "."', [topic('.')]);
      await create(ctx, 'name ".."', [topic('..')]);
      await create(ctx, 'name of 250 chars', [topic('x'.repeat(250))]);
      await create(ctx, 'name colliding with ct-a by . vs _', [topic('ct.coll'), topic('ct_coll')]);
      await create(ctx, 'zero partitions', [topic('ct-zero', 0)]);
      await create(ctx, 'negative partitions (-5)', [topic('ct-neg', -5)]);
      await create(ctx, 'default partitions and replication (-1, -1)', [topic('ct-defaults', -1, -1)]);
      await create(ctx, 'replication factor 3 on one node', [topic('ct-rf3', 1, 3)]);
      await create(ctx, 'replication factor 0', [topic('ct-rf0', 1, 0)]);
      await create(ctx, 'too many partitions (1,000,000, validateOnly)', [topic('ct-huge', 1_000_000)], true);
      await create(ctx, 'internal name __consumer_offsets', [topic('__consumer_offsets')]);
      await create(ctx, 'internal name __transaction_state', [topic('__transaction_state')]);
      await create(ctx, 'validateOnly for a new topic', [topic('ct-validate-only', 2)], true);
      await ctx.send('metadata after validateOnly', ApiKey.Metadata, 12, {
        topics: [{ name: 'ct-validate-only' }],
        allowAutoTopicCreation: false,
      });
      await create(ctx, 'invalid config value retention.ms=abc', [
        topic('ct-badcfg', 1, 1, [{ name: 'retention.ms', value: 'abc' }]),
      ]);
      await create(ctx, 'unknown config name', [
        topic('ct-unknowncfg', 1, 1, [{ name: 'no.such.config', value: '1' }]),
      ]);
      await create(ctx, 'null config value', [topic('ct-nullcfg', 1, 1, [{ name: 'retention.ms', value: null }])]);
      await create(ctx, 'valid config cleanup.policy=compact', [
        topic('ct-compact', 1, 1, [{ name: 'cleanup.policy', value: 'compact' }]),
      ]);
    },
  },
  {
    name: 'delete-topics',
    about: 'DeleteTopics v6: unknown, existing, internal and twice-named topics; Metadata after it, auto-creating',
    async run(ctx) {
      await ctx.quiet(CreateTopics, 7, { topics: [topic('dt-a')], timeoutMs: 30_000, validateOnly: false });
      await ctx.waitForTopic('dt-a');
      const del = (step: string, names: string[]) =>
        ctx.send(step, ApiKey.DeleteTopics, 6, { topics: names.map((name) => ({ name })), timeoutMs: 30_000 });
      await del('delete unknown topic', ['dt-unknown']);
      await del('delete invalid name', ['bad name!']);
      await del('delete existing topic', ['dt-a']);
      await del('delete it again', ['dt-a']);
      await del('delete __consumer_offsets', ['__consumer_offsets']);
      await ctx.send('delete by unknown topic id', ApiKey.DeleteTopics, 6, {
        topics: [{ name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }],
        timeoutMs: 30_000,
      });
      await ctx.send('metadata of the deleted topic', ApiKey.Metadata, 12, {
        topics: [{ name: 'dt-a' }],
        allowAutoTopicCreation: false,
      });
      // kafka-go's delete-topics tests read the deleted topics' partitions with auto-creation on
      // (Metadata v6) and expect none: the first answer re-creates the topic without telling it.
      await ctx.send('metadata of the deleted topic, auto-creation allowed', ApiKey.Metadata, 6, {
        topics: [{ name: 'dt-a' }],
        allowAutoTopicCreation: true,
      });
      await ctx.waitForTopic('dt-a');
      await ctx.send('metadata of the re-created topic', ApiKey.Metadata, 6, {
        topics: [{ name: 'dt-a' }],
        allowAutoTopicCreation: true,
      });
    },
  },
  {
    name: 'create-partitions',
    about: 'CreatePartitions v3: grow, shrink, same count, unknown topic, validateOnly',
    async run(ctx) {
      await ctx.quiet(CreateTopics, 7, { topics: [topic('cp-a', 2)], timeoutMs: 30_000, validateOnly: false });
      await ctx.waitForTopic('cp-a');
      const cp = (step: string, name: string, count: number, validateOnly = false) =>
        ctx.send(step, ApiKey.CreatePartitions, 3, {
          topics: [{ name, count, assignments: null }],
          timeoutMs: 30_000,
          validateOnly,
        });
      await cp('grow 2 -> 4 (validateOnly)', 'cp-a', 4, true);
      await cp('grow 2 -> 4', 'cp-a', 4);
      await cp('same count 4', 'cp-a', 4);
      await cp('shrink 4 -> 1', 'cp-a', 1);
      await cp('unknown topic', 'cp-unknown', 3);
    },
  },
  {
    name: 'configs',
    about: 'DescribeConfigs v4 / AlterConfigs v2 / IncrementalAlterConfigs v1 on a topic and the broker',
    async run(ctx) {
      await ctx.quiet(CreateTopics, 7, { topics: [topic('cfg-a')], timeoutMs: 30_000, validateOnly: false });
      await ctx.waitForTopic('cfg-a');
      const node = await brokerId(ctx);
      const describe = (step: string, resourceType: number, resourceName: string, configurationKeys: string[] | null) =>
        ctx.send(step, ApiKey.DescribeConfigs, 4, {
          resources: [{ resourceType, resourceName, configurationKeys }],
          includeSynonyms: false,
          includeDocumentation: false,
        });
      await describe('describe topic, all keys', TOPIC, 'cfg-a', null);
      await describe('describe topic, two keys one unknown', TOPIC, 'cfg-a', ['retention.ms', 'no.such.config']);
      await describe('describe unknown topic', TOPIC, 'cfg-unknown', null);
      await describe('describe broker, three keys', BROKER, node, [
        'log.retention.ms',
        'num.partitions',
        'auto.create.topics.enable',
      ]);
      await describe('describe broker with a non-numeric name', BROKER, 'not-a-number', null);
      await describe('describe resource type 99', 99, 'x', null);

      const alter = (step: string, configs: { name: string; value: string | null }[], validateOnly = false) =>
        ctx.send(step, ApiKey.AlterConfigs, 2, {
          resources: [{ resourceType: TOPIC, resourceName: 'cfg-a', configs }],
          validateOnly,
        });
      await alter('alter retention.ms=3600000', [{ name: 'retention.ms', value: '3600000' }]);
      await alter('alter retention.ms=abc', [{ name: 'retention.ms', value: 'abc' }]);
      await alter('alter unknown config name', [{ name: 'no.such.config', value: '1' }]);
      await alter('alter cleanup.policy=bogus', [{ name: 'cleanup.policy', value: 'bogus' }]);
      await alter('alter validateOnly segment.bytes=1048576', [{ name: 'segment.bytes', value: '1048576' }], true);
      await ctx.send('alter unknown topic', ApiKey.AlterConfigs, 2, {
        resources: [
          { resourceType: TOPIC, resourceName: 'cfg-unknown', configs: [{ name: 'retention.ms', value: '1' }] },
        ],
        validateOnly: false,
      });
      await describe('describe after alter', TOPIC, 'cfg-a', ['retention.ms', 'segment.bytes', 'cleanup.policy']);

      const incremental = (step: string, configs: { name: string; configOperation: number; value: string | null }[]) =>
        ctx.send(step, ApiKey.IncrementalAlterConfigs, 1, {
          resources: [{ resourceType: TOPIC, resourceName: 'cfg-a', configs }],
          validateOnly: false,
        });
      await incremental('incremental SET max.message.bytes=2000000', [
        { name: 'max.message.bytes', configOperation: 0, value: '2000000' },
      ]);
      await incremental('incremental DELETE retention.ms', [{ name: 'retention.ms', configOperation: 1, value: null }]);
      await incremental('incremental SET bad value', [
        { name: 'max.message.bytes', configOperation: 0, value: 'lots' },
      ]);
      await incremental('incremental unknown config', [{ name: 'no.such.config', configOperation: 0, value: '1' }]);
      await incremental('incremental operation 9', [{ name: 'retention.ms', configOperation: 9, value: '1' }]);
      await incremental('incremental APPEND to a non-list config', [
        { name: 'retention.ms', configOperation: 2, value: '1' },
      ]);
      await describe('describe after incremental', TOPIC, 'cfg-a', ['retention.ms', 'max.message.bytes']);
    },
  },
];
