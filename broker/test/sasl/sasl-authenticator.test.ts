// The per-connection SASL state (server/sasl/sasl-authenticator.ts) without sockets: the principal
// a login sets, the failure delay, and the unauthenticated slot a connection holds (login-throttle.ts).
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { plainMessage } from '../../src/sasl/scram-client';
import { credentialFromPassword, ScramCredential } from '../../src/sasl/scram-crypto';
import { LoginThrottle } from '../../src/server/sasl/login-throttle';
import { SaslAuthenticator, SaslServices } from '../../src/server/sasl/sasl-authenticator';
import { newSession } from '../../src/server/session';

const SASL_LISTENER = { name: 'SASL_PLAINTEXT', securityProtocol: 'SASL_PLAINTEXT' } as const;

const throttle = (baseDelayMs: number) =>
  new LoginThrottle({ baseDelayMs, maxDelayMs: 8 * baseDelayMs, maxUnauthenticatedPerAddress: 100 });

function services(over: Partial<SaslServices> = {}, users: Record<string, ScramCredential> = {}): SaslServices {
  return {
    mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'],
    lookup: (user, mechanism) => users[`${user}/${mechanism}`],
    maxReauthMs: 0,
    throttle: throttle(0),
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
      const auth = new SaslAuthenticator(newSession(SASL_LISTENER, '10.0.0.1'), services({ throttle: throttle(100) }));
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

describe('the unauthenticated slot a SASL connection holds', () => {
  const opened = (t: LoginThrottle) => (expect(t.tryOpen('10.0.0.1')).toBe(true), t);

  it('is given back at the login, or at the close of a connection that never failed', async () => {
    const users = { 'alice/SCRAM-SHA-256': await credentialFromPassword('SCRAM-SHA-256', 'pw') };
    const t = opened(throttle(0));
    const auth = new SaslAuthenticator(newSession(SASL_LISTENER, '10.0.0.1'), services({ throttle: t }, users));
    await auth.handshake('PLAIN', 1);
    expect(t.unauthenticatedFrom('10.0.0.1')).toBe(1);
    await auth.authenticate(plainMessage('alice', 'pw'));
    expect(t.unauthenticatedFrom('10.0.0.1')).toBe(0);
    auth.closed(); // given back once only
    const t2 = opened(throttle(0));
    new SaslAuthenticator(newSession(SASL_LISTENER, '10.0.0.1'), services({ throttle: t2 })).closed();
    expect(t2.unauthenticatedFrom('10.0.0.1')).toBe(0);
  });

  it('a failed one holds it until its delay is over, even when the client hung up first', async () => {
    jest.useFakeTimers();
    try {
      const t = opened(throttle(100));
      const auth = new SaslAuthenticator(newSession(SASL_LISTENER, '10.0.0.1'), services({ throttle: t }));
      await auth.handshake('PLAIN', 1);
      let answer: unknown;
      // Not three tokens: fails without a password derivation (which fake timers would not wait for).
      void auth.authenticate(Buffer.from('mallory\0guess')).then((r) => (answer = r));
      await jest.advanceTimersByTimeAsync(1);
      auth.closed();
      expect(t.unauthenticatedFrom('10.0.0.1')).toBe(1);
      await jest.advanceTimersByTimeAsync(99);
      expect(answer).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED });
      expect(t.unauthenticatedFrom('10.0.0.1')).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});

it('a close while the credentials are being checked leaves the slot to the outcome', async () => {
  let openGate: () => void = () => {};
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  const lookup = async () => {
    await gate;
    return undefined;
  };
  const t = throttle(0);
  t.tryOpen('10.0.0.1');
  const auth = new SaslAuthenticator(newSession(SASL_LISTENER, '10.0.0.1'), { ...services({ throttle: t }), lookup });
  await auth.handshake('PLAIN', 1);
  const answer = auth.authenticate(plainMessage('mallory', 'guess'));
  auth.closed();
  expect(t.unauthenticatedFrom('10.0.0.1')).toBe(1);
  openGate();
  expect(await answer).toMatchObject({ errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED });
  expect(t.unauthenticatedFrom('10.0.0.1')).toBe(0);
  expect(t.failuresOf('10.0.0.1', 'mallory', 0)).toBe(1);
});
