// What AlterShareGroupOffsets and DeleteShareGroupOffsets check before touching a share group's
// offsets, in Kafka's order: the ACL on the group (READ to alter, DELETE to delete), that this
// broker coordinates it, and that it is an empty share group (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP).
import { ErrorCode } from '../../protocol/error-codes';
import { coordinatorGate } from '../cluster-answers';
import type { RequestContext } from '../context';
import { may } from './authz';

export interface ShareAdminRefusal {
  errorCode: number;
  errorMessage: string | null;
}

export async function shareGroupAdminRefusal(
  ctx: RequestContext,
  operation: 'READ' | 'DELETE',
  groupId: string,
): Promise<ShareAdminRefusal | null> {
  if (!may(ctx, operation, 'GROUP', groupId))
    return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: 'Group authorization failed.' };
  const notHere = await coordinatorGate(ctx, 'group', groupId);
  if (notHere !== ErrorCode.NONE) return { errorCode: notHere, errorMessage: null };
  return ctx.broker.shareGroups.offsets.refusal(groupId);
}
