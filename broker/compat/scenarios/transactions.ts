// Transactions (KIP-98, transaction version 1): the coordinator's answers to each request in each
// state, the read side (read_committed Fetch and ListOffsets, OffsetFetch require_stable) and
// fencing. Kafka decides EndTxn in two steps (PrepareCommit, then markers): after each EndTxn the
// scenario waits, on both brokers, until DescribeTransactions shows the decision complete.
// The request bodies are txn-requests.ts's; transaction-timeout.ts and txn-offset-commit-member.ts
// hold the other two scenarios.
import { ApiKey } from '../../src/protocol/api-keys';
import type { Scenario } from '../scenario';
import { transactionTimeoutScenario } from './transaction-timeout';
import { txnOffsetCommitMemberScenario } from './txn-offset-commit-member';
import {
  GROUP,
  ID,
  TOPIC,
  addPartitions,
  byTimeBody,
  offsetToCommit,
  createTopic,
  endTxn,
  fetchBody,
  initBody,
  latestBody,
  offsetFetchStable,
  produceBody,
  txnOffsetCommitBody,
  waitForState,
  waitForTxnCoordinator,
} from './txn-requests';
import type { Producer } from './txn-requests';

const transactionsScenario: Scenario = {
  name: 'transactions',
  about:
    'InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn in each state; read_committed Fetch/ListOffsets; require_stable; fencing; Describe/ListTransactions',
  async run(ctx) {
    const sequences = new Map<string, number>();
    await createTopic(ctx);
    await ctx.waitForCoordinator(GROUP);
    await waitForTxnCoordinator(ctx);

    await ctx.send('find coordinator (key type 1)', ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: [ID] });
    await ctx.send(
      'init: timeout above the maximum',
      ApiKey.InitProducerId,
      4,
      initBody(ID, { transactionTimeoutMs: 2 ** 31 - 1 }),
    );
    await ctx.send('init: timeout 0', ApiKey.InitProducerId, 4, initBody(ID, { transactionTimeoutMs: 0 }));
    await ctx.send('init: producer id without epoch', ApiKey.InitProducerId, 4, initBody(ID, { producerId: 5n }));
    await ctx.send('init: empty transactional id', ApiKey.InitProducerId, 4, initBody(''));
    const init = await ctx.send('init', ApiKey.InitProducerId, 4, initBody(ID));
    const p: Producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
    const other = { producerId: p.producerId + 1000n, producerEpoch: p.producerEpoch };
    const newer = { ...p, producerEpoch: p.producerEpoch + 1 };

    await ctx.send('describe (Empty)', ApiKey.DescribeTransactions, 0, { transactionalIds: [ID, 'cx-none', ''] });
    await ctx.send('end txn: Empty', ApiKey.EndTxn, 3, endTxn(p, true));
    await ctx.send('end txn: unknown id', ApiKey.EndTxn, 3, { ...endTxn(p, true), transactionalId: 'cx-none' });
    await ctx.send(
      'add partitions: an unknown topic and partition',
      ApiKey.AddPartitionsToTxn,
      3,
      addPartitions(p, [
        { name: TOPIC, partitions: [0, 9] },
        { name: 'cx-nope', partitions: [0] },
      ]),
    );
    await ctx.send(
      'add partitions: another producer id',
      ApiKey.AddPartitionsToTxn,
      3,
      addPartitions(other, [{ name: TOPIC, partitions: [0] }]),
    );
    await ctx.send(
      'add partitions: a newer epoch (v3)',
      ApiKey.AddPartitionsToTxn,
      3,
      addPartitions(newer, [{ name: TOPIC, partitions: [0] }]),
    );
    await ctx.send(
      'add partitions: a newer epoch (v1)',
      ApiKey.AddPartitionsToTxn,
      1,
      addPartitions(newer, [{ name: TOPIC, partitions: [0] }]),
    );
    await ctx.send(
      'produce: partition not added (KIP-890)',
      ApiKey.Produce,
      9,
      produceBody(sequences, p, 0, 'not added', true),
    );

    await ctx.send(
      'add partitions',
      ApiKey.AddPartitionsToTxn,
      3,
      addPartitions(p, [{ name: TOPIC, partitions: [0, 1] }]),
    );
    await ctx.send(
      'add partitions again (already in)',
      ApiKey.AddPartitionsToTxn,
      3,
      addPartitions(p, [{ name: TOPIC, partitions: [1] }]),
    );
    await ctx.send('produce p0', ApiKey.Produce, 9, produceBody(sequences, p, 0, 'committed'));
    await ctx.send('fetch read_committed (open)', ApiKey.Fetch, 11, fetchBody(0, 1));
    await ctx.send('fetch read_uncommitted (open)', ApiKey.Fetch, 11, fetchBody(0, 0));
    await ctx.send('list offsets read_committed (open)', ApiKey.ListOffsets, 5, latestBody(1));
    await ctx.send('list offsets read_uncommitted (open)', ApiKey.ListOffsets, 5, latestBody(0));
    for (const [what, ts] of [
      ['time 0', 0n],
      ['max timestamp', -3n],
    ] as const) {
      await ctx.send(`list offsets ${what} read_committed (open)`, ApiKey.ListOffsets, 7, byTimeBody(1, ts));
      await ctx.send(`list offsets ${what} read_uncommitted (open)`, ApiKey.ListOffsets, 7, byTimeBody(0, ts));
    }
    await ctx.send(
      'txn offset commit: group not added',
      ApiKey.TxnOffsetCommit,
      3,
      txnOffsetCommitBody(p, [offsetToCommit(TOPIC, 42n, 'm')]),
    );
    await ctx.send('add offsets: a newer epoch', ApiKey.AddOffsetsToTxn, 3, {
      transactionalId: ID,
      ...newer,
      groupId: GROUP,
    });
    await ctx.send('add offsets', ApiKey.AddOffsetsToTxn, 3, { transactionalId: ID, ...p, groupId: GROUP });
    await ctx.send(
      'txn offset commit (an unknown partition, a stale generation)',
      ApiKey.TxnOffsetCommit,
      3,
      txnOffsetCommitBody(p, [offsetToCommit(TOPIC, 1n), offsetToCommit('cx-nope', 1n)], {
        generationId: 5,
        memberId: 'm-1',
        groupInstanceId: null,
      }),
    );
    await ctx.send(
      'txn offset commit',
      ApiKey.TxnOffsetCommit,
      3,
      txnOffsetCommitBody(p, [offsetToCommit(TOPIC, 42n, 'm')]),
    );
    await ctx.send('offset fetch require_stable (pending)', ApiKey.OffsetFetch, 7, offsetFetchStable);
    await ctx.send('offset fetch v8 require_stable (pending)', ApiKey.OffsetFetch, 8, {
      groups: [{ groupId: GROUP, topics: null }],
      requireStable: true,
    });
    await ctx.send('offset fetch (pending, not require_stable)', ApiKey.OffsetFetch, 7, {
      ...offsetFetchStable,
      requireStable: false,
    });
    await ctx.send('describe (Ongoing)', ApiKey.DescribeTransactions, 0, { transactionalIds: [ID] });
    await ctx.send('list: Ongoing, this producer', ApiKey.ListTransactions, 1, {
      stateFilters: ['Ongoing', 'Bogus'],
      producerIdFilters: [p.producerId],
      durationFilter: -1n,
    });
    await ctx.send('end txn: a newer epoch (v1)', ApiKey.EndTxn, 1, endTxn(newer, true));
    await ctx.send('end txn: another producer id', ApiKey.EndTxn, 3, endTxn(other, true));
    await ctx.send('end txn: commit', ApiKey.EndTxn, 3, endTxn(p, true));
    await waitForState(ctx, 'CompleteCommit');
    await ctx.send('end txn: commit again (a retry)', ApiKey.EndTxn, 3, endTxn(p, true));
    await ctx.send('end txn: abort after the commit', ApiKey.EndTxn, 3, endTxn(p, false));
    await ctx.send('fetch read_committed (committed)', ApiKey.Fetch, 11, fetchBody(0, 1));
    await ctx.send('list offsets read_committed (committed)', ApiKey.ListOffsets, 5, latestBody(1));
    await ctx.send('list offsets time 0 read_committed (committed)', ApiKey.ListOffsets, 7, byTimeBody(1, 0n));
    await ctx.send('list offsets max timestamp read_committed (committed)', ApiKey.ListOffsets, 7, byTimeBody(1, -3n));
    await ctx.send('offset fetch require_stable (committed)', ApiKey.OffsetFetch, 7, offsetFetchStable);
    await ctx.send('describe (CompleteCommit)', ApiKey.DescribeTransactions, 0, { transactionalIds: [ID] });

    // An aborted transaction: read_committed gets its range.
    await ctx.send(
      'add partitions (second transaction)',
      ApiKey.AddPartitionsToTxn,
      3,
      addPartitions(p, [{ name: TOPIC, partitions: [1] }]),
    );
    await ctx.send('produce p1', ApiKey.Produce, 9, produceBody(sequences, p, 1, 'aborted'));
    await ctx.send('end txn: abort', ApiKey.EndTxn, 3, endTxn(p, false));
    await waitForState(ctx, 'CompleteAbort');
    await ctx.send('end txn: abort again (a retry)', ApiKey.EndTxn, 3, endTxn(p, false));
    await ctx.send('fetch read_committed (aborted)', ApiKey.Fetch, 11, fetchBody(1, 1));
    await ctx.send('fetch read_uncommitted (aborted)', ApiKey.Fetch, 11, fetchBody(1, 0));

    // Fencing: a new instance bumps the epoch; the old one is refused everywhere.
    const second = await ctx.send('init again (a second instance)', ApiKey.InitProducerId, 4, initBody(ID));
    const q: Producer = { producerId: second.producerId, producerEpoch: second.producerEpoch };
    await ctx.send(
      'add partitions: the fenced epoch (v3)',
      ApiKey.AddPartitionsToTxn,
      3,
      addPartitions(p, [{ name: TOPIC, partitions: [0] }]),
    );
    await ctx.send('end txn: the fenced epoch (v1)', ApiKey.EndTxn, 1, endTxn(p, true));
    await ctx.send('end txn: the fenced epoch (v3)', ApiKey.EndTxn, 3, endTxn(p, true));
    await ctx.send('add offsets: the fenced epoch (v1)', ApiKey.AddOffsetsToTxn, 1, {
      transactionalId: ID,
      ...p,
      groupId: GROUP,
    });
    await ctx.send('add offsets: the fenced epoch (v3)', ApiKey.AddOffsetsToTxn, 3, {
      transactionalId: ID,
      ...p,
      groupId: GROUP,
    });
    await ctx.send(
      'txn offset commit: the fenced epoch',
      ApiKey.TxnOffsetCommit,
      3,
      txnOffsetCommitBody(p, [offsetToCommit(TOPIC, 7n)]),
    );
    await ctx.send('produce: the fenced epoch', ApiKey.Produce, 9, produceBody(sequences, p, 0, 'zombie', true));
    await ctx.send('init naming the fenced epoch (v4, KIP-360)', ApiKey.InitProducerId, 4, initBody(ID, { ...p }));
    await ctx.send('init naming the fenced epoch (v3)', ApiKey.InitProducerId, 3, initBody(ID, { ...p }));
    const bumped = await ctx.send(
      'init naming the current epoch (KIP-360 bump)',
      ApiKey.InitProducerId,
      4,
      initBody(ID, { ...q }),
    );
    await ctx.send('init naming the same epoch again (a retry)', ApiKey.InitProducerId, 4, initBody(ID, { ...q }));
    // InitProducerId while a transaction is open: Kafka fences it and answers CONCURRENT_TRANSACTIONS
    // (the client retries and gets a second bump); minnow aborts and bumps at once (docs/transactions.md).
    const r: Producer = { producerId: bumped.producerId, producerEpoch: bumped.producerEpoch };
    await ctx.send(
      'add partitions (third transaction)',
      ApiKey.AddPartitionsToTxn,
      3,
      addPartitions(r, [{ name: TOPIC, partitions: [0] }]),
    );
    await ctx.send('produce p0 (third transaction)', ApiKey.Produce, 9, produceBody(sequences, r, 0, 'fenced'));
    await ctx.send('init while a transaction is open', ApiKey.InitProducerId, 4, initBody(ID));
    await waitForState(ctx, 'CompleteAbort', 'Empty'); // Kafka: aborted; minnow: aborted and initialized
    await ctx.send('fetch read_committed (fenced)', ApiKey.Fetch, 11, fetchBody(0, 1));
    await ctx.send('list: this producer', ApiKey.ListTransactions, 1, {
      stateFilters: [],
      producerIdFilters: [p.producerId],
      durationFilter: -1n,
    });
    // Later scenarios list every group: leave none behind (Kafka does not list a group whose only
    // offsets came from a transaction; minnow lists every group with offsets).
    await ctx.quiet(ApiKey.DeleteGroups, 2, { groupsNames: [GROUP] });
  },
};

export const transactionScenarios: Scenario[] = [
  transactionsScenario,
  transactionTimeoutScenario,
  txnOffsetCommitMemberScenario,
];
