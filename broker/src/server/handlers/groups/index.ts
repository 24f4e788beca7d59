// The consumer-group APIs (classic protocol), one handler per file; the server's registry adds them.
import type { ApiHandler } from '../../context';
import { deleteGroupsHandler } from './delete-groups';
import { describeGroupsHandler } from './describe-groups';
import { findCoordinatorHandler } from './find-coordinator';
import { heartbeatHandler } from './heartbeat';
import { joinGroupHandler } from './join-group';
import { leaveGroupHandler } from './leave-group';
import { listGroupsHandler } from './list-groups';
import { offsetCommitHandler } from './offset-commit';
import { offsetDeleteHandler } from './offset-delete';
import { offsetFetchHandler } from './offset-fetch';
import { syncGroupHandler } from './sync-group';

export const groupHandlers: ApiHandler[] = [
  findCoordinatorHandler,
  joinGroupHandler,
  syncGroupHandler,
  heartbeatHandler,
  leaveGroupHandler,
  offsetCommitHandler,
  offsetFetchHandler,
  listGroupsHandler,
  describeGroupsHandler,
  deleteGroupsHandler,
  offsetDeleteHandler,
];
