// TxnOffsetCommit v3 from a consumer group member (KIP-447): the group generation and member
// checks, during and after a rebalance.
import { ApiKey } from '../../src/protocol/api-keys';
import type { Scenario } from '../scenario';
import {
  TOPIC,
  createTopic,
  initBody,
  offsetToCommit,
  txnOffsetCommitBody,
  waitForTxnCoordinator,
} from './txn-requests';
import type { Producer } from './txn-requests';

export const txnOffsetCommitMemberScenario: Scenario = {
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
      ctx.send(
        step,
        ApiKey.TxnOffsetCommit,
        3,
        txnOffsetCommitBody(
          p,
          [offsetToCommit(TOPIC, 3n)],
          { generationId, memberId, groupInstanceId },
          { transactionalId: id, groupId: group },
        ),
      );
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
};
