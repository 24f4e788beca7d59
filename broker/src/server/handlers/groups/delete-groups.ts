// DeleteGroups (key 42): v0-2 (v2 is flexible). KIP-896 meant to drop v0, but Kafka 4.1 still
// advertises and serves it (seen with npm run compat), so minnow does too. Only groups without
// members (else NON_EMPTY_GROUP); their committed offsets are deleted too, a share group's
// share-partition state with it.
import { ApiKey } from '../../../protocol/api-keys';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from '../../../protocol/messages';
import { ErrorCode } from '../../../protocol/error-codes';
import type { ApiHandler } from '../../context';
import { may } from '../authz';
import { coordinatorGate } from '../../cluster-answers';

export const deleteGroupsHandler: ApiHandler<DeleteGroupsRequest, DeleteGroupsResponse> = {
  apiKey: ApiKey.DeleteGroups,
  minVersion: 0,
  maxVersion: 2,
  async handle(ctx, req) {
    // KafkaApis.handleDeleteGroupsRequest: DELETE on each group.
    const allowed = req.groupsNames.filter((g) => may(ctx, 'DELETE', 'GROUP', g));
    // Only the group's coordinator deletes it (its members are in that broker's memory, src/cluster).
    const gates = await Promise.all(allowed.map((g) => coordinatorGate(ctx, 'group', g)));
    const refused = allowed.flatMap((groupId, i) => (gates[i] ? [{ groupId, errorCode: gates[i] }] : []));
    const here = allowed.filter((_, i) => gates[i] === ErrorCode.NONE);
    // Share groups (KIP-932) are deleted with their share-partition state, only when Empty
    // (GroupCoordinatorService.deleteShareGroups; NON_EMPTY_GROUP otherwise).
    const shareOffsets = ctx.broker.shareGroups.offsets;
    const isShare = await Promise.all(here.map((g) => shareOffsets.isShareGroup(g)));
    const shareResults = [];
    for (const groupId of here.filter((_, i) => isShare[i]))
      shareResults.push({ groupId, errorCode: await shareOffsets.deleteGroup(groupId) });
    const classic = here.filter((_, i) => !isShare[i]);
    const deleted = new Map(
      [...(await ctx.broker.groups.deleteGroups(classic)), ...shareResults, ...refused].map(
        (r) => [r.groupId, r] as const,
      ),
    );
    return {
      throttleTimeMs: 0,
      results: req.groupsNames.map(
        (groupId) => deleted.get(groupId) ?? { groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED },
      ),
    };
  },
};
