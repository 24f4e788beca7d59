// The checks share-group handlers make before their work, each answered as a top-level error.
import { ErrorCode } from '../../protocol/error-codes';
import { coordinatorGate } from '../cluster-answers';
import type { RequestContext } from '../context';
import { may } from './authz';

export interface ShareRefusal {
  errorCode: number;
  errorMessage: string | null;
}

/**
 * ShareFetch and ShareAcknowledge: a group id and a member id (INVALID_REQUEST without), and READ on
 * the group (GROUP_AUTHORIZATION_FAILED).
 */
export function shareMemberRefusal(
  ctx: RequestContext,
  api: string,
  groupId: string,
  memberId: string,
): ShareRefusal | null {
  if (groupId === '' || memberId === '')
    return {
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: `${api} needs a GroupId and a MemberId (a share consumer sends both).`,
    };
  if (!may(ctx, 'READ', 'GROUP', groupId))
    return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null };
  return null;
}

/**
 * AlterShareGroupOffsets and DeleteShareGroupOffsets, in Kafka's order: the ACL on the group (READ
 * to alter, DELETE to delete), that this broker coordinates it, and that it is an empty share group
 * (GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP).
 */
export async function shareGroupAdminRefusal(
  ctx: RequestContext,
  operation: 'READ' | 'DELETE',
  groupId: string,
): Promise<ShareRefusal | null> {
  if (!may(ctx, operation, 'GROUP', groupId))
    return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: 'Group authorization failed.' };
  const notHere = await coordinatorGate(ctx, 'group', groupId);
  if (notHere !== ErrorCode.NONE) return { errorCode: notHere, errorMessage: null };
  return ctx.broker.shareGroups.offsets.refusal(groupId);
}
