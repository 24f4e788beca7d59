// The per-connection SASL state (server/sasl/sasl-authenticator.ts) and the per-address failure
// limit, without sockets: the principal a login sets, the failure delay, the limiter's bound.
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { plainMessage } from '../../src/sasl/scram-client';
import { credentialFromPassword, ScramCredential } from '../../src/sasl/scram-crypto';
import { AuthFailureLimiter } from '../../src/server/sasl/auth-failure-limiter';
import { SaslAuthenticator, SaslServices } from '../../src/server/sasl/sasl-authenticator';
import { newSession } from '../../src/server/session';

const SASL_LISTENER = { name: 'SASL_PLAINTEXT', securityProtocol: 'SASL_PLAINTEXT' } as const;

function services(over: Partial<SaslServices> = {}, users: Record<string, ScramCredential> = {}): SaslServices {
  return {
    mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'],
    lookup: (user, mechanism) => users[`${user}/${mechanism}`],
    maxReauthMs: 0,
    failureDelayMs: 0,
    limiter: new AuthFailureLimiter(0),
    now: () => 0,
    ...over,
  };
}

describe('SaslAuthenticator', () => {
  it('a PLAIN login makes the session User:alice and opens the other APIs', async () => {
    const users = { 'alice/SCRAM-SHA-256': await credentialFromPassword('SCRAM-SHA-256', 'pw') };
    const session = newSession(SASL_LISTENER, '10.0.0.1');
    const auth = new SaslAuthenticator(session, services({}, users));
    expect(auth.route(ApiKey.Metadata, 0)).toMatchObject({ route: 'close' });
    expect(auth.route(ApiKey.ApiVersions, 0)).toEqual({ route: 'request' });
    expect(await auth.handshake('PLAIN', 1)).toEqual({
      errorCode: 0,
      mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'],
    });
    expect(auth.route(ApiKey.Metadata, 0)).toMatchObject({ route: 'close' });
    const res = await auth.authenticate(plainMessage('alice', 'pw'));
    expect(res).toMatchObject({ errorCode: 0, sessionLifetimeMs: 0n });
    expect(session.principal).toEqual({ principalType: 'User', name: 'alice' });
    expect(auth.route(ApiKey.Metadata, 0)).toEqual({ route: 'request' });
    expect(auth.route(ApiKey.Metadata, 1e15)).toEqual({ route: 'request' }); // no CONNECTIONS_MAX_REAUTH_MS: no expiry
  });

  it('answers a failure only after CONNECTION_FAILED_AUTHENTICATION_DELAY_MS, then refuses everything', async () => {
    jest.useFakeTimers();
    try {
      const auth = new SaslAuthenticator(newSession(SASL_LISTENER, '10.0.0.1'), services({ failureDelayMs: 100 }));
      let answer: unknown;
      void auth.handshake('GSSAPI', 1).then((r) => (answer = r));
      await jest.advanceTimersByTimeAsync(99);
      expect(answer).toBeUndefined();
      await jest.advanceTimersByTimeAsync(1);
      expect(answer).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM });
      expect(auth.failed).toBe(true);
      expect(auth.route(ApiKey.ApiVersions, 0)).toMatchObject({ route: 'close' });
    } finally {
      jest.useRealTimers();
    }
  });

  it('a second SaslHandshake during an exchange is ILLEGAL_SASL_STATE', async () => {
    const auth = new SaslAuthenticator(newSession(SASL_LISTENER, '10.0.0.1'), services());
    await auth.handshake('SCRAM-SHA-256', 1);
    expect(auth.route(ApiKey.SaslHandshake, 0)).toMatchObject({ route: 'close' });
    expect(await auth.handshake('PLAIN', 1)).toMatchObject({ errorCode: ErrorCode.ILLEGAL_SASL_STATE });
  });

  it('re-authentication must keep the mechanism', async () => {
    const users = { 'alice/SCRAM-SHA-256': await credentialFromPassword('SCRAM-SHA-256', 'pw') };
    const auth = new SaslAuthenticator(newSession(SASL_LISTENER, '10.0.0.1'), services({ maxReauthMs: 1000 }, users));
    await auth.handshake('PLAIN', 1);
    await auth.authenticate(plainMessage('alice', 'pw'));
    expect(await auth.handshake('SCRAM-SHA-256', 1)).toMatchObject({ errorCode: 0 });
    expect(await auth.authenticate(Buffer.from('n,,n=alice,r=abc'))).toMatchObject({
      errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED,
      errorMessage:
        "SASL mechanism 'SCRAM-SHA-256' requested by client is not supported for re-authentication of mechanism 'PLAIN'",
    });
  });
});

describe('AuthFailureLimiter', () => {
  it('blocks an address at its limit until its minute is over, and forgets others', () => {
    const l = new AuthFailureLimiter(2);
    l.recordFailure('a', 0);
    expect(l.blocked('a', 1)).toBe(false);
    l.recordFailure('a', 1);
    expect(l.blocked('a', 2)).toBe(true);
    expect(l.blocked('b', 2)).toBe(false);
    expect(l.blocked('a', 60_000)).toBe(false);
  });

  it('remembers at most 10,000 addresses (the oldest go first)', () => {
    const l = new AuthFailureLimiter(1);
    for (let i = 0; i < 25_000; i++) l.recordFailure(`10.0.${i >> 8}.${i & 255}`, 0);
    expect(l.size).toBe(10_000);
    expect(l.blocked('10.0.0.0', 0)).toBe(false); // the first one was forgotten
    expect(l.blocked(`10.0.${24_999 >> 8}.${24_999 & 255}`, 0)).toBe(true);
  });

  it('0 means no limit and remembers nothing', () => {
    const l = new AuthFailureLimiter(0);
    for (let i = 0; i < 100; i++) l.recordFailure('a', 0);
    expect(l.blocked('a', 0)).toBe(false);
    expect(l.size).toBe(0);
  });
});
