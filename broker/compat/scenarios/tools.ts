// What Kafka's operator tools send (issue 30): kafka-topics' DescribeTopicPartitions with its
// cursor, kafka-transactions' DescribeProducers and WriteTxnMarkers (abort), kafka-reassign-partitions'
// AlterPartitionReassignments / ListPartitionReassignments, and kafka-configs on a broker's dynamic
// configs (Kafka's own that minnow does not use, a custom one, a static one).
import { ApiKey } from '../../src/protocol/api-keys';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { Scenario } from '../scenario';

const topic = (name: string, numPartitions: number) => ({
  name,
  numPartitions,
  replicationFactor: 1,
  assignments: [],
  configs: [],
});

export const toolScenarios: Scenario[] = [
  {
    name: 'describe-topic-partitions',
    about: 'DescribeTopicPartitions v0: named topics paged by a partition limit and cursor, bad cursors',
    async run(ctx) {
      await ctx.quiet(ApiKey.CreateTopics, 7, {
        topics: [topic('dtp-a', 3), topic('dtp-b', 2)],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      await ctx.waitForTopic('dtp-a');
      await ctx.waitForTopic('dtp-b');
      const names = [{ name: 'dtp-b' }, { name: 'dtp-a' }, { name: 'dtp-nope' }];
      const dtp = (step: string, limit: number, cursor: { topicName: string; partitionIndex: number } | null) =>
        ctx.send(step, ApiKey.DescribeTopicPartitions, 0, { topics: names, responsePartitionLimit: limit, cursor });
      await dtp('all partitions', 2000, null);
      await dtp('first page of 2', 2, null);
      await dtp('from dtp-a partition 2', 2, { topicName: 'dtp-a', partitionIndex: 2 });
      await dtp('page ending on a topic boundary', 3, null);
      await dtp('cursor on a topic not asked for', 10, { topicName: 'dtp-c', partitionIndex: 0 });
      await dtp('negative cursor partition', 10, { topicName: 'dtp-a', partitionIndex: -1 });
    },
  },
  {
    name: 'producer-tools',
    about: 'DescribeProducers v0 after an idempotent produce; an operator ABORT marker (WriteTxnMarkers v1)',
    async run(ctx) {
      await ctx.quiet(ApiKey.CreateTopics, 7, { topics: [topic('dp-t', 1)], timeoutMs: 30_000, validateOnly: false });
      await ctx.waitForTopic('dp-t');
      // Kafka answers COORDINATOR_LOAD_IN_PROGRESS until its producer id manager is ready.
      const deadline = Date.now() + 30_000;
      let init;
      for (;;) {
        init = await ctx.quiet(ApiKey.InitProducerId, 4, {
          transactionalId: null,
          transactionTimeoutMs: 60_000,
          producerId: -1n,
          producerEpoch: -1,
        });
        if (init.errorCode === 0) break;
        if (Date.now() > deadline) throw new Error(`InitProducerId still answers ${init.errorCode} after 30 s`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const records = encodeRecordBatch({
        records: [0, 1, 2].map((i) => ({ value: Buffer.from(`v${i}`), timestamp: BigInt(Date.now()) })),
        producerId: init.producerId,
        producerEpoch: init.producerEpoch,
        baseSequence: 0,
      });
      await ctx.send('idempotent produce', ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: 'dp-t', partitionData: [{ index: 0, records }] }],
      });
      await ctx.send('describe producers', ApiKey.DescribeProducers, 0, {
        topics: [
          { name: 'dp-t', partitionIndexes: [0, 7] },
          { name: 'dp-nope', partitionIndexes: [0] },
        ],
      });
      // An operator's ABORT marker (kafka-transactions abort) for a producer with no open transaction.
      await ctx.send('abort marker at the current epoch', ApiKey.WriteTxnMarkers, 1, {
        markers: [
          {
            producerId: init.producerId,
            producerEpoch: init.producerEpoch,
            transactionResult: false,
            coordinatorEpoch: 0,
            topics: [
              { name: 'dp-t', partitionIndexes: [0] },
              { name: 'dp-nope', partitionIndexes: [0] },
            ],
          },
        ],
      });
      await ctx.send('describe producers after the marker', ApiKey.DescribeProducers, 0, {
        topics: [{ name: 'dp-t', partitionIndexes: [0] }],
      });
    },
  },
  {
    name: 'reassignments',
    about: 'AlterPartitionReassignments v0 to the current replica, a cancel, an unknown topic; then a list',
    async run(ctx) {
      await ctx.quiet(ApiKey.CreateTopics, 7, { topics: [topic('ra-t', 2)], timeoutMs: 30_000, validateOnly: false });
      await ctx.waitForTopic('ra-t');
      const md = await ctx.quiet(ApiKey.Metadata, 12, {
        topics: [{ name: 'ra-t' }],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
      const leader = md.topics[0].partitions[0].leaderId as number;
      await ctx.send('reassign', ApiKey.AlterPartitionReassignments, 0, {
        timeoutMs: 30_000,
        topics: [
          { name: 'ra-t', partitions: [{ partitionIndex: 0, replicas: [leader] }] },
          { name: 'ra-t', partitions: [{ partitionIndex: 1, replicas: null }] },
          { name: 'ra-nope', partitions: [{ partitionIndex: 0, replicas: [leader] }] },
          { name: 'ra-t', partitions: [{ partitionIndex: 1, replicas: [] }] },
        ],
      });
      await ctx.send('list', ApiKey.ListPartitionReassignments, 0, { timeoutMs: 30_000, topics: null });
    },
  },
  {
    name: 'broker-configs',
    about:
      "IncrementalAlterConfigs v1 on the broker: Kafka's dynamic configs, a custom one, a static one; then describe",
    async run(ctx) {
      const md = await ctx.quiet(ApiKey.Metadata, 12, {
        topics: [],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
      const node = String(md.brokers[0].nodeId);
      const set = (step: string, configs: Record<string, string>) =>
        ctx.send(step, ApiKey.IncrementalAlterConfigs, 1, {
          resources: [
            {
              resourceType: 4,
              resourceName: node,
              configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: 0, value })),
            },
          ],
          validateOnly: false,
        });
      await set("Kafka's dynamic configs", {
        'log.cleaner.threads': '2',
        'sasl.kerberos.min.time.before.relogin': '58000',
      });
      await set('a custom config', { 'custom.plugin.setting': 'x' });
      await set('a static config', { 'log.dirs': '/tmp/elsewhere' });
      await set('a bad value', { 'num.io.threads': 'many' });
      await ctx.send('describe them', ApiKey.DescribeConfigs, 4, {
        resources: [
          {
            resourceType: 4,
            resourceName: node,
            configurationKeys: [
              'log.cleaner.threads',
              'sasl.kerberos.min.time.before.relogin',
              'custom.plugin.setting',
            ],
          },
        ],
        includeSynonyms: true,
        includeDocumentation: false,
      });
    },
  },
];
