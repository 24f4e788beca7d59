// ListGroups (key 16): v0-5. v3 is flexible, v4 adds a state filter (KIP-518), v5 a type filter
// (KIP-848: "classic", "consumer", and "share" for KIP-932's share groups). Groups known only by committed offsets are listed as Empty.
import { ApiKey } from '../../../protocol/api-keys';
import { ErrorCode } from '../../../protocol/error-codes';
import type { ListGroupsRequest, ListGroupsResponse } from '../../../protocol/messages';
import type { ApiHandler } from '../../context';
import { may, mayOnCluster } from '../authz';
import { placedHere } from '../../cluster-answers';

export const listGroupsHandler: ApiHandler<ListGroupsRequest, ListGroupsResponse> = {
  apiKey: ApiKey.ListGroups,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    const coord = ctx.broker.groups;
    if (coord.isClosed) return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, groups: [] };
    const statesFilter = v >= 4 ? (req.statesFilter ?? []) : [];
    const typesFilter = v >= 5 ? (req.typesFilter ?? []) : [];
    let groups = await coord.listGroups(statesFilter, typesFilter);
    // Share groups (KIP-932): protocol type and group type "share", filtered the same way.
    const states = new Set(statesFilter.map((s) => s.toLowerCase()));
    const types = new Set(typesFilter.map((t) => t.toLowerCase()));
    const listed = new Set(groups.map((g) => g.groupId));
    for (const g of ctx.broker.shareGroups.coordinator.listGroups()) {
      if (listed.has(g.groupId)) continue;
      if (states.size > 0 && !states.has(g.state.toLowerCase())) continue;
      if (types.size > 0 && !types.has('share')) continue;
      groups.push({ groupId: g.groupId, protocolType: 'share', groupState: g.state, groupType: 'share' });
    }
    // KafkaApis.handleListGroupsRequest: all groups with DESCRIBE on the cluster, else those the
    // principal may DESCRIBE.
    // Each broker lists the groups it coordinates: the admin client asks every broker and merges.
    groups = groups.filter((g) => placedHere(ctx.broker, 'group', g.groupId));
    if (!mayOnCluster(ctx, 'DESCRIBE')) groups = groups.filter((g) => may(ctx, 'DESCRIBE', 'GROUP', g.groupId));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups };
  },
};
