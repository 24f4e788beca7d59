// Transaction version 2 (KIP-890 part 2), as a Java 4.x producer drives it once ApiVersions says
// transaction.version 2 is finalized: Produce v12 adds its partition to the transaction (v11
// without AddPartitionsToTxn is refused), TxnOffsetCommit v5 adds the group, EndTxn v5 bumps the
// epoch and answers it; a retry of that EndTxn (the epoch before) and the other rows of Kafka's
// table; a produce of the ended epoch. Kafka writes markers after answering EndTxn: after each one
// the scenario waits, on both brokers, until DescribeTransactions shows the decision complete.
import { ApiKey } from '../../src/protocol/api-keys';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { Scenario, ScenarioContext } from '../scenario';

const TOPIC = 'cx2-t';
const GROUP = 'cx2-g';
const ID = 'cx2-tx';
const WAIT_LIMIT_MS = 30_000;

interface Producer {
  producerId: bigint;
  producerEpoch: number;
}

async function waitUntil(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${WAIT_LIMIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const initBody = (transactionalId: string) => ({
  transactionalId,
  transactionTimeoutMs: 60_000,
  producerId: -1n,
  producerEpoch: -1,
});

/** One transactional record of `p` for TOPIC-`partition` at `seq`. */
const produceBody = (p: Producer, partition: number, seq: number, value: string) => ({
  transactionalId: ID,
  acks: -1,
  timeoutMs: 10_000,
  topicData: [
    {
      name: TOPIC,
      partitionData: [
        {
          index: partition,
          records: encodeRecordBatch({
            records: [{ value: Buffer.from(value), timestamp: BigInt(Date.now()) }],
            producerId: p.producerId,
            producerEpoch: p.producerEpoch,
            baseSequence: seq,
            isTransactional: true,
          }),
        },
      ],
    },
  ],
});

const endTxn = (p: Producer, committed: boolean) => ({ transactionalId: ID, ...p, committed });

export const transactionV2Scenarios: Scenario[] = [
  {
    name: 'transactions-v2',
    about:
      'Produce v12 and TxnOffsetCommit v5 adding to the transaction; EndTxn v5 epoch bumps, retries and its state table; the ended epoch fenced',
    async run(ctx: ScenarioContext) {
      // Kafka creates __transaction_state on the first FindCoordinator and loads it.
      await waitUntil('a transaction coordinator', async () => {
        const fc = await ctx.quiet(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: [ID] });
        return fc.coordinators[0].errorCode === 0;
      });
      await ctx.quiet(ApiKey.CreateTopics, 7, {
        topics: [{ name: TOPIC, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      await ctx.waitForTopic(TOPIC);
      await ctx.waitForCoordinator(GROUP);
      let init: any;
      await waitUntil(
        'InitProducerId',
        async () => (init = await ctx.quiet(ApiKey.InitProducerId, 5, initBody(ID))).errorCode === 0,
      );
      const p0: Producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
      const describe = (step: string) => ctx.send(step, ApiKey.DescribeTransactions, 0, { transactionalIds: [ID] });
      const waitFor = (state: string) =>
        waitUntil(`${ID} reaching ${state}`, async () => {
          const d = await ctx.quiet(ApiKey.DescribeTransactions, 0, { transactionalIds: [ID] });
          return d.transactionStates[0].transactionState === state;
        });

      await ctx.send('Produce v11 without AddPartitionsToTxn', ApiKey.Produce, 11, produceBody(p0, 0, 0, 'v11'));
      await ctx.send('Produce v12 adds the partition', ApiKey.Produce, 12, produceBody(p0, 0, 0, 'a'));
      await ctx.send('TxnOffsetCommit v5 adds the group', ApiKey.TxnOffsetCommit, 5, {
        transactionalId: ID,
        groupId: GROUP,
        producerId: p0.producerId,
        producerEpoch: p0.producerEpoch,
        generationId: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [
          {
            name: TOPIC,
            partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }],
          },
        ],
      });
      await describe('describe (Ongoing, added by Produce v12)');

      const committed = await ctx.send('EndTxn v5 commit', ApiKey.EndTxn, 5, endTxn(p0, true));
      const p1: Producer = { producerId: p0.producerId, producerEpoch: committed?.producerEpoch ?? -1 };
      await waitFor('CompleteCommit');
      await describe('describe (CompleteCommit, epoch bumped)');
      await ctx.send('EndTxn v5 commit retried (epoch before the bump)', ApiKey.EndTxn, 5, endTxn(p0, true));
      await ctx.send('EndTxn v5 abort retried after a commit', ApiKey.EndTxn, 5, endTxn(p0, false));
      await ctx.send('EndTxn v5 commit at the new epoch, nothing added', ApiKey.EndTxn, 5, endTxn(p1, true));
      await ctx.send('Produce v12 of the ended epoch', ApiKey.Produce, 12, produceBody(p0, 1, 1, 'late'));
      await ctx.send('OffsetFetch (committed by the transaction)', ApiKey.OffsetFetch, 7, {
        groupId: GROUP,
        topics: [{ name: TOPIC, partitionIndexes: [0] }],
        requireStable: true,
      });

      // An abort with nothing added (a producer recovering from an abortable error) bumps the epoch.
      const empty = await ctx.send('EndTxn v5 abort, nothing added', ApiKey.EndTxn, 5, endTxn(p1, false));
      const p2: Producer = { producerId: p0.producerId, producerEpoch: empty?.producerEpoch ?? -1 };
      await waitFor('CompleteAbort');
      await ctx.send('EndTxn v5 abort retried', ApiKey.EndTxn, 5, endTxn(p1, false));
      await ctx.send('Produce v12 at the new epoch', ApiKey.Produce, 12, produceBody(p2, 1, 0, 'b'));
      await ctx.send('EndTxn v5 commit retried while Ongoing', ApiKey.EndTxn, 5, endTxn(p1, true));
      await ctx.send('EndTxn v5 abort', ApiKey.EndTxn, 5, endTxn(p2, false));
      await waitFor('CompleteAbort');
      await describe('describe (CompleteAbort)');
      await ctx.send('ListOffsets read_committed', ApiKey.ListOffsets, 5, {
        replicaId: -1,
        isolationLevel: 1,
        topics: [
          {
            name: TOPIC,
            partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, timestamp: -1n, currentLeaderEpoch: -1 })),
          },
        ],
      });
      await ctx.send('InitProducerId v5 after version 2 ends', ApiKey.InitProducerId, 5, initBody(ID));
    },
  },
];
