// What the transaction scenarios (transactions.ts, transaction-timeout.ts, txn-offset-commit-member.ts,
// and transactions-v2.ts with ids of its own) share: their topic, group and transactional id, the
// request bodies they send, and the waits for Kafka's asynchronous steps (the coordinator loading,
// EndTxn's markers).
import { ApiKey } from '../../src/protocol/api-keys';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import type { ScenarioContext } from '../scenario';

export const TOPIC = 'cx-t';
export const GROUP = 'cx-g';
export const ID = 'cx-tx';

export interface Producer {
  producerId: bigint;
  producerEpoch: number;
}

const POLL_MS = 100;
const WAIT_LIMIT_MS = 30_000;

export async function waitUntil(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${WAIT_LIMIT_MS} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Kafka creates __transaction_state on the first FindCoordinator and loads it: wait for InitProducerId to work. */
export async function waitForTxnCoordinator(ctx: ScenarioContext): Promise<void> {
  await waitUntil('a transaction coordinator', async () => {
    const fc = await ctx.quiet(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['cx-probe'] });
    if (fc.coordinators[0].errorCode !== 0) return false;
    const init = await ctx.quiet(ApiKey.InitProducerId, 4, initBody('cx-probe'));
    return init.errorCode === 0;
  });
}

/** Until the transaction's decision is written everywhere (Kafka: CompleteCommit / CompleteAbort). */
export const waitForState = (ctx: ScenarioContext, ...states: string[]) =>
  waitUntil(`${ID} reaching ${states.join(' or ')}`, async () => {
    const d = await ctx.quiet(ApiKey.DescribeTransactions, 0, { transactionalIds: [ID] });
    return states.includes(d.transactionStates[0].transactionState);
  });

export const initBody = (transactionalId: string, over: Record<string, unknown> = {}) => ({
  transactionalId,
  transactionTimeoutMs: 60_000,
  producerId: -1n,
  producerEpoch: -1,
  ...over,
});

export const addPartitions = (p: Producer, topics: { name: string; partitions: number[] }[]) => ({
  v3AndBelowTransactionalId: ID,
  v3AndBelowProducerId: p.producerId,
  v3AndBelowProducerEpoch: p.producerEpoch,
  v3AndBelowTopics: topics,
});

/** Each run (minnow, then Kafka) counts its own sequences: producer ids may coincide. */
export function produceBody(
  sequences: Map<string, number>,
  p: Producer,
  partition: number,
  value: string,
  refused = false,
) {
  const key = `${p.producerId}/${p.producerEpoch}/${partition}`;
  const seq = sequences.get(key) ?? 0;
  if (!refused) sequences.set(key, seq + 1);
  return transactionalProduce({ id: ID, topic: TOPIC, timeoutMs: 5000 }, p, partition, seq, value);
}

/** Produce's body for one transactional record of `p` at `seq` in `to.topic`-`partition`. */
export const transactionalProduce = (
  to: { id: string; topic: string; timeoutMs: number },
  p: Producer,
  partition: number,
  seq: number,
  value: string,
) => ({
  transactionalId: to.id,
  acks: -1,
  timeoutMs: to.timeoutMs,
  topicData: [
    {
      name: to.topic,
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

/** One partition's offset as TxnOffsetCommit carries it (partition 0 unless named). */
export const offsetToCommit = (name: string, committedOffset: bigint, committedMetadata = '', partitionIndex = 0) => ({
  name,
  partitions: [{ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata }],
});

/** The member fields of a TxnOffsetCommit from a producer outside any group generation. */
const NO_MEMBER = { generationId: -1, memberId: '', groupInstanceId: null as string | null };

/** TxnOffsetCommit's body: `p` commits `topics` for `ids` (this module's ID and GROUP unless named). */
export const txnOffsetCommitBody = (
  p: Producer,
  topics: ReturnType<typeof offsetToCommit>[],
  member = NO_MEMBER,
  ids = { transactionalId: ID, groupId: GROUP },
) => ({ ...ids, producerId: p.producerId, producerEpoch: p.producerEpoch, ...member, topics });

export const fetchBody = (partition: number, isolationLevel: number) => ({
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

export const latestBody = (isolationLevel: number) => ({
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
export const byTimeBody = (isolationLevel: number, timestamp: bigint) => ({
  replicaId: -1,
  isolationLevel,
  topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }],
});

export const endTxn = (p: Producer, committed: boolean) => ({ transactionalId: ID, ...p, committed });

export const offsetFetchStable = {
  groupId: GROUP,
  topics: [{ name: TOPIC, partitionIndexes: [0, 1] }],
  requireStable: true,
};

/** The scenarios' 2-partition topic, created and visible. */
export async function createTopic(ctx: ScenarioContext): Promise<void> {
  await ctx.quiet(ApiKey.CreateTopics, 7, {
    topics: [{ name: TOPIC, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  await ctx.waitForTopic(TOPIC);
}
