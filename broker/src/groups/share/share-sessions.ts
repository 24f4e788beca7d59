// Share sessions (KIP-932; Kafka's ShareSessionCache): one per (group, member), opened by a
// ShareFetch with epoch 0, closed by epoch -1 (ShareFetch or ShareAcknowledge). Each later request
// carries the epoch the previous answer made current (one more each time); the session remembers the
// partitions the member fetches, so incremental requests name only what changes. A session belongs
// to the connection that opened it: when that connection closes the session ends and the member's
// acquired records go back (Kafka 4.1's ShareSessionCache connection listener). At most
// group.share.max.share.sessions sessions at once (SHARE_SESSION_LIMIT_REACHED past it).
import { ErrorCode } from '../../protocol/error-codes';

export const OPEN_EPOCH = 0;
export const CLOSE_EPOCH = -1;

export interface ShareSession {
  /** The epoch the next request must carry. */
  nextEpoch: number;
  /** "topicId\u0000partition" of every partition in the session, in the order they were added. */
  partitions: Set<string>;
  /** The connection that opened it (undefined when opened outside a connection, in tests). */
  connectionId?: number;
}

export const sessionPartitionKey = (topicId: string, partition: number) => `${topicId}\u0000${partition}`;

/** Kafka's group.share.max.share.sessions default. */
export const DEFAULT_MAX_SHARE_SESSIONS = 2000;

export class ShareSessions {
  private readonly sessions = new Map<string, ShareSession>();

  constructor(private readonly maxSessions: number = DEFAULT_MAX_SHARE_SESSIONS) {}

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
  check(
    groupId: string,
    memberId: string,
    epoch: number,
    connectionId?: number,
  ): { errorCode: number; session?: ShareSession } {
    const key = ShareSessions.key(groupId, memberId);
    if (epoch === OPEN_EPOCH) {
      // A new session replaces the member's old one (SharePartitionManager.newContext).
      this.sessions.delete(key);
      if (this.sessions.size >= this.maxSessions) return { errorCode: ErrorCode.SHARE_SESSION_LIMIT_REACHED };
      const session: ShareSession = { nextEpoch: 1, partitions: new Set(), connectionId };
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

  /** The connection closed: its sessions end; returns whose they were (their records go back). */
  connectionClosed(connectionId: number): Array<{ groupId: string; memberId: string }> {
    const gone: Array<{ groupId: string; memberId: string }> = [];
    for (const [key, session] of this.sessions) {
      if (session.connectionId !== connectionId) continue;
      this.sessions.delete(key);
      const [groupId, memberId] = key.split('\u0000');
      gone.push({ groupId: groupId!, memberId: memberId! });
    }
    return gone;
  }

  /** A member left the group: its session goes with it. */
  drop(groupId: string, memberId: string): void {
    this.sessions.delete(ShareSessions.key(groupId, memberId));
  }
}
