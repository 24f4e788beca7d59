// Transactions (KIP-98, transaction version 1): the coordinator's answers to each request in each
// state, the read side (read_committed Fetch and ListOffsets, OffsetFetch require_stable) and
// fencing. Kafka decides EndTxn in two steps (PrepareCommit, then markers): after each EndTxn the
// scenario waits, on both brokers, until DescribeTransactions shows the decision complete.
import { ApiKey } from '../../src/protocol/api-keys';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { Scenario, ScenarioContext } from '../scenario';

const TOPIC = 'cx-t';
const GROUP = 'cx-g';
const ID = 'cx-tx';

interface Producer {
  producerId: bigint;
  producerEpoch: number;
}

const POLL_MS = 100;
const WAIT_LIMIT_MS = 30_000;

async function waitUntil(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${WAIT_LIMIT_MS} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Kafka creates __transaction_state on the first FindCoordinator and loads it: wait for InitProducerId to work. */
async function waitForTxnCoordinator(ctx: ScenarioContext): Promise<void> {
  await waitUntil('a transaction coordinator', async () => {
    const fc = await ctx.quiet(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['cx-probe'] });
    if (fc.coordinators[0].errorCode !== 0) return false;
    const init = await ctx.quiet(ApiKey.InitProducerId, 4, initBody('cx-probe'));
    return init.errorCode === 0;
  });
}

/** Until the transaction's decision is written everywhere (Kafka: CompleteCommit / CompleteAbort). */
const waitForState = (ctx: ScenarioContext, ...states: string[]) =>
  waitUntil(`${ID} reaching ${states.join(' or ')}`, async () => {
    const d = await ctx.quiet(ApiKey.DescribeTransactions, 0, { transactionalIds: [ID] });
    return states.includes(d.transactionStates[0].transactionState);
  });

const initBody = (transactionalId: string, over: Record<string, unknown> = {}) => ({
  transactionalId,
  transactionTimeoutMs: 60_000,
  producerId: -1n,
  producerEpoch: -1,
  ...over,
});

const addPartitions = (p: Producer, topics: { name: string; partitions: number[] }[]) => ({
  v3AndBelowTransactionalId: ID,
  v3AndBelowProducerId: p.producerId,
  v3AndBelowProducerEpoch: p.producerEpoch,
  v3AndBelowTopics: topics,
});

/** Each run (minnow, then Kafka) counts its own sequences: producer ids may coincide. */
function produceBody(sequences: Map<string, number>, p: Producer, partition: number, value: string, refused = false) {
  const key = `${p.producerId}/${p.producerEpoch}/${partition}`;
  const seq = sequences.get(key) ?? 0;
  if (!refused) sequences.set(key, seq + 1);
  return {
    transactionalId: ID,
    acks: -1,
    timeoutMs: 5000,
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
  };
}

const fetchBody = (partition: number, isolationLevel: number) => ({
  replicaId: -1,
  maxWaitMs: 0,
  minBytes: 0,
  maxBytes: 1 << 20,
  isolationLevel,
  sessionId: 0,
  sessionEpoch: -1,
  topics: [
    { topic: TOPIC, partitions: [{ partition, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] },
  ],
  forgottenTopicsData: [],
  rackId: '',
});

const latestBody = (isolationLevel: number) => ({
  replicaId: -1,
  isolationLevel,
  topics: [
    {
      name: TOPIC,
      partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n })),
    },
  ],
});

/** Partition 0 by time: 0 (the first record from then on) or -3 (the largest timestamp, v7+). */
const byTimeBody = (isolationLevel: number, timestamp: bigint) => ({
  replicaId: -1,
  isolationLevel,
  topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }],
});

const endTxn = (p: Producer, committed: boolean) => ({ transactionalId: ID, ...p, committed });

const offsetFetchStable = {
  groupId: GROUP,
  topics: [{ name: TOPIC, partitionIndexes: [0, 1] }],
  requireStable: true,
};

const TIMEOUT_ID = 'cx-timeout';

/** Until the broker's timeout pass aborted TIMEOUT_ID (each checks every 10 s by default). */
const waitForTimeoutAbort = (ctx: ScenarioContext) =>
  waitUntil(`${TIMEOUT_ID} timing out`, async () => {
    const d = await ctx.quiet(ApiKey.DescribeTransactions, 0, { transactionalIds: [TIMEOUT_ID] });
    return d.transactionStates[0].transactionState === 'CompleteAbort';
  });

/** The scenarios' 2-partition topic, created and visible. */
async function createTopic(ctx: ScenarioContext): Promise<void> {
  await ctx.quiet(ApiKey.CreateTopics, 7, {
    topics: [{ name: TOPIC, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  await ctx.waitForTopic(TOPIC);
}

export const transactionScenarios: Scenario[] = [
  {
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
      await ctx.send('txn offset commit: group not added', ApiKey.TxnOffsetCommit, 3, {
        transactionalId: ID,
        groupId: GROUP,
        ...p,
        generationId: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [
          {
            name: TOPIC,
            partitions: [{ partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: -1, committedMetadata: 'm' }],
          },
        ],
      });
      await ctx.send('add offsets: a newer epoch', ApiKey.AddOffsetsToTxn, 3, {
        transactionalId: ID,
        ...newer,
        groupId: GROUP,
      });
      await ctx.send('add offsets', ApiKey.AddOffsetsToTxn, 3, { transactionalId: ID, ...p, groupId: GROUP });
      await ctx.send('txn offset commit (an unknown partition, a stale generation)', ApiKey.TxnOffsetCommit, 3, {
        transactionalId: ID,
        groupId: GROUP,
        ...p,
        generationId: 5,
        memberId: 'm-1',
        groupInstanceId: null,
        topics: [
          {
            name: TOPIC,
            partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }],
          },
          {
            name: 'cx-nope',
            partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }],
          },
        ],
      });
      await ctx.send('txn offset commit', ApiKey.TxnOffsetCommit, 3, {
        transactionalId: ID,
        groupId: GROUP,
        ...p,
        generationId: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [
          {
            name: TOPIC,
            partitions: [{ partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: -1, committedMetadata: 'm' }],
          },
        ],
      });
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
      await ctx.send(
        'list offsets max timestamp read_committed (committed)',
        ApiKey.ListOffsets,
        7,
        byTimeBody(1, -3n),
      );
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
      await ctx.send('txn offset commit: the fenced epoch', ApiKey.TxnOffsetCommit, 3, {
        transactionalId: ID,
        groupId: GROUP,
        ...p,
        generationId: -1,
        memberId: '',
        groupInstanceId: null,
        topics: [
          {
            name: TOPIC,
            partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' }],
          },
        ],
      });
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
  },
  {
    name: 'transaction-timeout',
    about:
      'a transaction past its transaction.timeout.ms is aborted by the broker; what its producer then gets (EndTxn, AddPartitionsToTxn, InitProducerId naming its epoch)',
    async run(ctx) {
      const sequences = new Map<string, number>();
      await createTopic(ctx);
      await waitForTxnCoordinator(ctx);
      const init = await ctx.send(
        'init (timeout 1 s)',
        ApiKey.InitProducerId,
        4,
        initBody(TIMEOUT_ID, { transactionTimeoutMs: 1000 }),
      );
      const p: Producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
      const add = { ...addPartitions(p, [{ name: TOPIC, partitions: [1] }]), v3AndBelowTransactionalId: TIMEOUT_ID };
      await ctx.send('add partitions', ApiKey.AddPartitionsToTxn, 3, add);
      await ctx.send('produce', ApiKey.Produce, 9, {
        ...produceBody(sequences, p, 1, 'late'),
        transactionalId: TIMEOUT_ID,
      });
      await waitForTimeoutAbort(ctx);
      await ctx.send('describe (timed out)', ApiKey.DescribeTransactions, 0, { transactionalIds: [TIMEOUT_ID] });
      await ctx.send('fetch read_committed (timed out)', ApiKey.Fetch, 11, fetchBody(1, 1));
      await ctx.send('end txn: abort with the timed-out epoch', ApiKey.EndTxn, 3, {
        ...endTxn(p, false),
        transactionalId: TIMEOUT_ID,
      });
      await ctx.send('end txn: abort with the timed-out epoch (v1)', ApiKey.EndTxn, 1, {
        ...endTxn(p, false),
        transactionalId: TIMEOUT_ID,
      });
      await ctx.send('add partitions with the timed-out epoch', ApiKey.AddPartitionsToTxn, 3, add);
      await ctx.send(
        'init naming the timed-out epoch (KIP-360)',
        ApiKey.InitProducerId,
        4,
        initBody(TIMEOUT_ID, { ...p }),
      );
      await ctx.send('describe (recovered)', ApiKey.DescribeTransactions, 0, { transactionalIds: [TIMEOUT_ID] });
      await ctx.send('init naming the timed-out epoch again', ApiKey.InitProducerId, 4, initBody(TIMEOUT_ID, { ...p }));
      const next = await ctx.send('init (a new instance)', ApiKey.InitProducerId, 4, initBody(TIMEOUT_ID));
      await ctx.send(
        'init naming the timed-out epoch after a new instance',
        ApiKey.InitProducerId,
        4,
        initBody(TIMEOUT_ID, { ...p }),
      );
      await ctx.send('init (another instance)', ApiKey.InitProducerId, 4, initBody(TIMEOUT_ID));
      await ctx.send(
        'init naming the epoch a plain init replaced',
        ApiKey.InitProducerId,
        4,
        initBody(TIMEOUT_ID, {
          producerId: next.producerId,
          producerEpoch: next.producerEpoch,
        }),
      );
    },
  },
  {
    name: 'txn-offset-commit-member',
    about:
      'TxnOffsetCommit v3 from a group member (KIP-447): its generation and member id checked, a rebalance not in the way',
    async run(ctx) {
      const id = 'cx-member-tx';
      const group = 'cx-mg';
      await createTopic(ctx);
      await ctx.waitForCoordinator(group);
      await waitForTxnCoordinator(ctx);
      const init = await ctx.quiet(ApiKey.InitProducerId, 4, initBody(id));
      const p: Producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
      await ctx.quiet(ApiKey.AddOffsetsToTxn, 3, { transactionalId: id, ...p, groupId: group });
      const join = (memberId: string) =>
        ctx.quiet(ApiKey.JoinGroup, 9, {
          groupId: group,
          sessionTimeoutMs: 30_000,
          rebalanceTimeoutMs: 30_000,
          memberId,
          groupInstanceId: null,
          protocolType: 'consumer',
          protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]) }],
          reason: null,
        });
      const first = await join('');
      // Completes after the initial rebalance delay (3 s on both by default): the group is then
      // CompletingRebalance until the leader's SyncGroup.
      const joined = await join(first.memberId);
      const commit = (step: string, generationId: number, memberId: string, groupInstanceId: string | null = null) =>
        ctx.send(step, ApiKey.TxnOffsetCommit, 3, {
          transactionalId: id,
          groupId: group,
          ...p,
          generationId,
          memberId,
          groupInstanceId,
          topics: [
            {
              name: TOPIC,
              partitions: [{ partitionIndex: 0, committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }],
            },
          ],
        });
      await commit('the member, during the rebalance', joined.generationId, joined.memberId);
      await ctx.quiet(ApiKey.SyncGroup, 5, {
        groupId: group,
        generationId: joined.generationId,
        memberId: joined.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: [],
      });
      await commit('the member', joined.generationId, joined.memberId);
      await commit('a stale generation', joined.generationId - 1, joined.memberId);
      await commit('a future generation', joined.generationId + 1, joined.memberId);
      await commit('an unknown member', joined.generationId, 'no-such-member');
      await commit('no member, generation -1 (older producers)', -1, '');
      await commit('an unknown group instance id', joined.generationId, joined.memberId, 'no-such-instance');
      await ctx.quiet(ApiKey.EndTxn, 3, { transactionalId: id, ...p, committed: false });
      await ctx.quiet(ApiKey.LeaveGroup, 5, {
        groupId: group,
        members: [{ memberId: joined.memberId, groupInstanceId: null, reason: null }],
      });
      await ctx.quiet(ApiKey.DeleteGroups, 2, { groupsNames: [group] });
    },
  },
];
