// A transaction past its transaction.timeout.ms, aborted by the broker's timeout pass, and what
// its producer gets afterwards (KIP-360's recovery by InitProducerId naming its epoch).
import { ApiKey } from '../../src/protocol/api-keys';
import type { Scenario, ScenarioContext } from '../scenario';
import {
  TOPIC,
  addPartitions,
  createTopic,
  endTxn,
  fetchBody,
  initBody,
  produceBody,
  waitForTxnCoordinator,
  waitUntil,
} from './txn-requests';
import type { Producer } from './txn-requests';

const TIMEOUT_ID = 'cx-timeout';

/** Until the broker's timeout pass aborted TIMEOUT_ID (each checks every 10 s by default). */
const waitForTimeoutAbort = (ctx: ScenarioContext) =>
  waitUntil(`${TIMEOUT_ID} timing out`, async () => {
    const d = await ctx.quiet(ApiKey.DescribeTransactions, 0, { transactionalIds: [TIMEOUT_ID] });
    return d.transactionStates[0].transactionState === 'CompleteAbort';
  });

export const transactionTimeoutScenario: Scenario = {
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
};
