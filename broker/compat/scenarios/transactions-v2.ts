// Transaction version 2 (KIP-890 part 2), as a Java 4.x producer drives it once ApiVersions says
// transaction.version 2 is finalized: Produce v12 adds its partition to the transaction (v11
// without AddPartitionsToTxn is refused), TxnOffsetCommit v5 adds the group, EndTxn v5 bumps the
// epoch and answers it; a retry of that EndTxn (the epoch before) and the other rows of Kafka's
// table; a produce of the ended epoch. Kafka writes markers after answering EndTxn: after each one
// the scenario waits, on both brokers, until DescribeTransactions shows the decision complete.
import { ApiKey } from '../../src/protocol/api-keys';
import type { Scenario, ScenarioContext } from '../scenario';
import { initBody, offsetToCommit, transactionalProduce, txnOffsetCommitBody, waitUntil } from './txn-requests';
import type { Producer } from './txn-requests';

const TOPIC = 'cx2-t';
const GROUP = 'cx2-g';
const ID = 'cx2-tx';

/** One transactional record of `p` for TOPIC-`partition` at `seq`. */
const produceBody = (p: Producer, partition: number, seq: number, value: string) =>
  transactionalProduce({ id: ID, topic: TOPIC, timeoutMs: 10_000 }, p, partition, seq, value);

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
      await ctx.send(
        'TxnOffsetCommit v5 adds the group',
        ApiKey.TxnOffsetCommit,
        5,
        txnOffsetCommitBody(p0, [offsetToCommit(TOPIC, 1n)], undefined, { transactionalId: ID, groupId: GROUP }),
      );
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
