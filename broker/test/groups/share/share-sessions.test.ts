// Share session epochs (KIP-932; Kafka's ShareSessionCache rules).
import { ErrorCode } from '../../../src/protocol/error-codes';
import { ShareSessions } from '../../../src/groups/share/share-sessions';

describe('ShareSessions', () => {
  it('opens with epoch 0, then wants one more each request, and closes with -1', () => {
    const s = new ShareSessions();
    expect(s.check('g', 'm', 1).errorCode).toBe(ErrorCode.SHARE_SESSION_NOT_FOUND);
    expect(s.check('g', 'm', 0).errorCode).toBe(ErrorCode.NONE);
    expect(s.check('g', 'm', 1).errorCode).toBe(ErrorCode.NONE);
    expect(s.check('g', 'm', 1).errorCode).toBe(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    expect(s.check('g', 'm', 2).errorCode).toBe(ErrorCode.NONE);
    expect(s.check('g', 'm', -1).errorCode).toBe(ErrorCode.NONE);
    expect(s.check('g', 'm', 3).errorCode).toBe(ErrorCode.SHARE_SESSION_NOT_FOUND);
  });

  it('keeps members apart and starts over on a new epoch 0', () => {
    const s = new ShareSessions();
    s.check('g', 'a', 0);
    s.check('g', 'a', 1);
    expect(s.check('g', 'b', 1).errorCode).toBe(ErrorCode.SHARE_SESSION_NOT_FOUND);
    expect(s.check('g', 'a', 0).errorCode).toBe(ErrorCode.NONE);
    expect(s.check('g', 'a', 1).errorCode).toBe(ErrorCode.NONE);
  });
});
