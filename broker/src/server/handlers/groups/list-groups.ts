// ListGroups (key 16): v0-5. v3 is flexible, v4 adds a state filter (KIP-518), v5 a type filter
// (KIP-848; every group here is "classic"). Groups known only by committed offsets are listed as Empty.
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
    let groups = await coord.listGroups(v >= 4 ? (req.statesFilter ?? []) : [], v >= 5 ? (req.typesFilter ?? []) : []);
    // KafkaApis.handleListGroupsRequest: all groups with DESCRIBE on the cluster, else those the
    // principal may DESCRIBE.
    // Each broker lists the groups it coordinates: the admin client asks every broker and merges.
    groups = groups.filter((g) => placedHere(ctx.broker, 'group', g.groupId));
    if (!mayOnCluster(ctx, 'DESCRIBE')) groups = groups.filter((g) => may(ctx, 'DESCRIBE', 'GROUP', g.groupId));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups };
  },
};
