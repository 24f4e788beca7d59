// Share sessions (KIP-932; Kafka's ShareSessionCache): one per (group, member), opened by a
// ShareFetch with epoch 0, closed by epoch -1 (ShareFetch or ShareAcknowledge). Each later request
// carries the epoch the previous answer made current (one more each time); the session remembers the
// partitions the member fetches, so incremental requests name only what changes.
import { ErrorCode } from '../../protocol/error-codes';

export const OPEN_EPOCH = 0;
export const CLOSE_EPOCH = -1;

export interface ShareSession {
  /** The epoch the next request must carry. */
  nextEpoch: number;
  /** "topicId\u0000partition" of every partition in the session, in the order they were added. */
  partitions: Set<string>;
}

export const sessionPartitionKey = (topicId: string, partition: number) => `${topicId}\u0000${partition}`;

export class ShareSessions {
  private readonly sessions = new Map<string, ShareSession>();

  private static key(groupId: string, memberId: string): string {
    return `${groupId}\u0000${memberId}`;
  }

  get(groupId: string, memberId: string): ShareSession | undefined {
    return this.sessions.get(ShareSessions.key(groupId, memberId));
  }

  /**
   * Checks a request's epoch against the member's session (Kafka's SharePartitionManager
   * newContext / acknowledgeSessionUpdate): NONE with the session to use (a fresh one for epoch 0),
   * or SHARE_SESSION_NOT_FOUND / INVALID_SHARE_SESSION_EPOCH. A passing request moves the epoch on;
   * epoch -1 removes the session (returned so its partitions can still be answered).
   */
  check(groupId: string, memberId: string, epoch: number): { errorCode: number; session?: ShareSession } {
    const key = ShareSessions.key(groupId, memberId);
    if (epoch === OPEN_EPOCH) {
      const session: ShareSession = { nextEpoch: 1, partitions: new Set() };
      this.sessions.set(key, session);
      return { errorCode: ErrorCode.NONE, session };
    }
    const session = this.sessions.get(key);
    if (!session) return { errorCode: ErrorCode.SHARE_SESSION_NOT_FOUND };
    if (epoch === CLOSE_EPOCH) {
      this.sessions.delete(key);
      return { errorCode: ErrorCode.NONE, session };
    }
    if (epoch !== session.nextEpoch) return { errorCode: ErrorCode.INVALID_SHARE_SESSION_EPOCH };
    // Kafka's ShareRequestMetadata.nextEpoch: wraps to 1 after Integer.MAX_VALUE.
    session.nextEpoch = epoch === 0x7fffffff ? 1 : epoch + 1;
    return { errorCode: ErrorCode.NONE, session };
  }

  /** A member left the group: its session goes with it. */
  drop(groupId: string, memberId: string): void {
    this.sessions.delete(ShareSessions.key(groupId, memberId));
  }
}
