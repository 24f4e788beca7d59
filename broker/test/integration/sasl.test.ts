// SASL on a sasl+tcp:// listener, through minnow's own client and raw frames: each mechanism logs
// in; wrong password, unknown user, no credentials and an unknown mechanism are refused and the
// connection closed; only ApiVersions/SaslHandshake/SaslAuthenticate before authentication;
// unframed tokens after SaslHandshake v0; KIP-368 expiry and re-authentication; SASL_MECHANISMS;
// ILLEGAL_SASL_STATE on a listener without SASL. Failed-login delays: sasl-fair-logins.test.ts.
import { KafkaClientError, KafkaConnection } from '../../src/client/connection';
import { SASL_MECHANISMS } from '../../src/client/sasl';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { plainMessage, ScramClient } from '../../src/sasl/scram-client';
import { addUser, RawConnection, SaslBroker, startSaslBroker } from './sasl-support';

const METADATA = { topics: [], allowAutoTopicCreation: false };

describe('SASL on a sasl+tcp:// listener', () => {
  let b: SaslBroker;
  beforeAll(async () => {
    b = await startSaslBroker({ connectionsMaxReauthMs: 60_000 });
    await addUser(b.broker.context.storage, 'alice', 'alice-secret');
    await addUser(b.broker.context.storage, 'bob', 'bob-secret');
  });
  afterAll(() => b.broker.stop());

  const connect = (mechanism: (typeof SASL_MECHANISMS)[number], username: string, password: string) =>
    KafkaConnection.connect('127.0.0.1', b.saslPort, {
      sasl: { mechanism, username, password },
      requestTimeoutMs: 10_000,
    });

  it.each(SASL_MECHANISMS)('%s: the right password logs in and requests are served', async (mechanism) => {
    const conn = await connect(mechanism, 'alice', 'alice-secret');
    const md = await conn.send(ApiKey.Metadata, 12, METADATA);
    expect(md.brokers).toHaveLength(1);
    conn.close();
  });

  it.each(SASL_MECHANISMS)('%s: wrong password and unknown user get the same hint-free refusal', async (mechanism) => {
    const errors: KafkaClientError[] = [];
    for (const [user, password] of [
      ['alice', 'wrong'],
      ['nobody', 'alice-secret'],
    ])
      errors.push(
        await connect(mechanism, user!, password!).then(
          () => undefined as never,
          (e) => e,
        ),
      );
    for (const e of errors) expect(e.errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    const text = (e: KafkaClientError) => e.message.replace(/"(alice|nobody)"/, 'USER');
    expect(text(errors[0]!)).toBe(text(errors[1]!));
    expect(errors[0]!.message).toMatch(
      mechanism === 'PLAIN'
        ? /Invalid username or password/
        : /Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM/,
    );
  });

  it('a failed login closes the connection after its answer', async () => {
    const raw = await RawConnection.connect(b.saslPort);
    raw.request(ApiKey.SaslHandshake, 1, 1, { mechanism: 'PLAIN' });
    expect((await raw.response(ApiKey.SaslHandshake, 1)).errorCode).toBe(ErrorCode.NONE);
    raw.request(ApiKey.SaslAuthenticate, 2, 2, { authBytes: plainMessage('alice', 'nope') });
    const res = await raw.response(ApiKey.SaslAuthenticate, 2);
    expect(res).toMatchObject({
      errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED,
      errorMessage: 'Authentication failed: Invalid username or password',
    });
    expect(await raw.next()).toBe('closed');
  });

  it('no credentials: any API but the SASL ones closes the connection unanswered', async () => {
    for (const [apiKey, version, body] of [
      [ApiKey.Metadata, 12, METADATA],
      [
        ApiKey.CreateTopics,
        7,
        {
          topics: [{ name: 'x', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
          timeoutMs: 1000,
          validateOnly: false,
        },
      ],
      [ApiKey.SaslAuthenticate, 2, { authBytes: plainMessage('alice', 'alice-secret') }],
      [ApiKey.DescribeUserScramCredentials, 0, { users: null }],
    ] as const) {
      const raw = await RawConnection.connect(b.saslPort);
      raw.request(ApiKey.ApiVersions, 3, 1, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
      expect((await raw.response(ApiKey.ApiVersions, 3)).errorCode).toBe(ErrorCode.NONE);
      raw.request(apiKey, version, 2, body);
      expect(await raw.next()).toBe('closed');
    }
    expect(await b.broker.context.storage.topic('x')).toBeUndefined();
  });

  it('an unknown mechanism gets UNSUPPORTED_SASL_MECHANISM with the offered list, then the connection closes', async () => {
    const raw = await RawConnection.connect(b.saslPort);
    raw.request(ApiKey.SaslHandshake, 1, 1, { mechanism: 'GSSAPI' });
    expect(await raw.response(ApiKey.SaslHandshake, 1)).toMatchObject({
      errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM,
      mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'],
    });
    expect(await raw.next()).toBe('closed');
  });

  it('SaslHandshake v0 then unframed PLAIN and SCRAM tokens', async () => {
    const plain = await RawConnection.connect(b.saslPort);
    plain.request(ApiKey.SaslHandshake, 0, 1, { mechanism: 'PLAIN' });
    expect((await plain.response(ApiKey.SaslHandshake, 0)).errorCode).toBe(ErrorCode.NONE);
    plain.writeToken(plainMessage('alice', 'alice-secret'));
    expect(await plain.next()).toEqual(Buffer.alloc(0)); // Kafka answers PLAIN with an empty token
    plain.request(ApiKey.Metadata, 12, 3, METADATA);
    expect((await plain.response(ApiKey.Metadata, 12)).correlationId).toBe(3);
    plain.close();

    const scram = await RawConnection.connect(b.saslPort);
    scram.request(ApiKey.SaslHandshake, 0, 1, { mechanism: 'SCRAM-SHA-512' });
    expect((await scram.response(ApiKey.SaslHandshake, 0)).errorCode).toBe(ErrorCode.NONE);
    const client = new ScramClient('SCRAM-SHA-512', 'bob', 'bob-secret');
    scram.writeToken(client.firstMessage());
    const serverFirst = await scram.next();
    scram.writeToken(await client.finalMessage(serverFirst as Buffer));
    client.verifyServerFinal((await scram.next()) as Buffer);
    scram.request(ApiKey.Metadata, 12, 4, METADATA);
    expect((await scram.response(ApiKey.Metadata, 12)).correlationId).toBe(4);
    scram.close();

    const wrong = await RawConnection.connect(b.saslPort);
    wrong.request(ApiKey.SaslHandshake, 0, 1, { mechanism: 'PLAIN' });
    await wrong.response(ApiKey.SaslHandshake, 0);
    wrong.writeToken(plainMessage('alice', 'bad'));
    expect(await wrong.next()).toBe('closed'); // no way to say why without framing: Kafka closes too
  });

  it('an unframed token shorter than a request header is still a token', async () => {
    await addUser(b.broker.context.storage, 'x', 'y');
    const raw = await RawConnection.connect(b.saslPort);
    raw.request(ApiKey.SaslHandshake, 0, 1, { mechanism: 'PLAIN' });
    await raw.response(ApiKey.SaslHandshake, 0);
    raw.writeToken(plainMessage('x', 'y')); // 4 bytes: \0x\0y
    expect(await raw.next()).toEqual(Buffer.alloc(0));
    raw.request(ApiKey.Metadata, 12, 2, METADATA);
    expect((await raw.response(ApiKey.Metadata, 12)).correlationId).toBe(2);
    raw.close();
  });

  it('KIP-368: SaslAuthenticate reports the session lifetime; after it, a request closes the connection', async () => {
    const conn = await connect('SCRAM-SHA-256', 'alice', 'alice-secret');
    b.clock.ms += 59_999;
    await conn.send(ApiKey.Metadata, 12, METADATA);
    b.clock.ms += 2;
    await expect(conn.send(ApiKey.Metadata, 12, METADATA)).rejects.toThrow(/closed/);
  });

  it('KIP-368: re-authentication on the live connection extends the session', async () => {
    const raw = await RawConnection.connect(b.saslPort);
    const login = async (user: string, password: string, correlationId: number) => {
      raw.request(ApiKey.SaslHandshake, 1, correlationId, { mechanism: 'PLAIN' });
      expect((await raw.response(ApiKey.SaslHandshake, 1)).errorCode).toBe(ErrorCode.NONE);
      raw.request(ApiKey.SaslAuthenticate, 2, correlationId + 1, { authBytes: plainMessage(user, password) });
      return raw.response(ApiKey.SaslAuthenticate, 2);
    };
    expect(await login('alice', 'alice-secret', 1)).toMatchObject({ errorCode: 0, sessionLifetimeMs: 60_000n });
    b.clock.ms += 50_000;
    expect(await login('alice', 'alice-secret', 3)).toMatchObject({ errorCode: 0, sessionLifetimeMs: 60_000n });
    b.clock.ms += 50_000; // 100 s after the first login, 50 s after the second
    raw.request(ApiKey.Metadata, 12, 5, METADATA);
    expect((await raw.response(ApiKey.Metadata, 12)).correlationId).toBe(5);
    // Once expired, a new SaslHandshake is still allowed (that is how a late client re-authenticates).
    b.clock.ms += 60_000;
    expect(await login('alice', 'alice-secret', 6)).toMatchObject({ errorCode: 0 });
    // Re-authenticating as someone else is refused and closes the connection.
    expect(await login('bob', 'bob-secret', 8)).toMatchObject({
      errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED,
      errorMessage: 'Cannot change principals during re-authentication from User.alice: User.bob',
    });
    expect(await raw.next()).toBe('closed');
  });

  it('SaslAuthenticate after authentication without a handshake is ILLEGAL_SASL_STATE', async () => {
    const conn = await connect('PLAIN', 'alice', 'alice-secret');
    const res = await conn.send(ApiKey.SaslAuthenticate, 2, { authBytes: plainMessage('alice', 'alice-secret') });
    expect(res).toMatchObject({ errorCode: ErrorCode.ILLEGAL_SASL_STATE });
    conn.close();
  });

  it('a listener without SASL answers SaslHandshake and SaslAuthenticate with ILLEGAL_SASL_STATE', async () => {
    const conn = await KafkaConnection.connect('127.0.0.1', b.plainPort);
    expect(await conn.send(ApiKey.SaslHandshake, 1, { mechanism: 'PLAIN' })).toMatchObject({
      errorCode: ErrorCode.ILLEGAL_SASL_STATE,
      mechanisms: [],
    });
    expect(await conn.send(ApiKey.SaslAuthenticate, 2, { authBytes: Buffer.alloc(0) })).toMatchObject({
      errorCode: ErrorCode.ILLEGAL_SASL_STATE,
    });
    conn.close();
  });
});

describe('SASL_MECHANISMS', () => {
  let b: SaslBroker;
  beforeAll(async () => {
    b = await startSaslBroker({ saslMechanisms: ['SCRAM-SHA-512'] });
    await addUser(b.broker.context.storage, 'alice', 'alice-secret');
  });
  afterAll(() => b.broker.stop());

  it('SASL_MECHANISMS limits what the handshake accepts and offers', async () => {
    const e = await KafkaConnection.connect('127.0.0.1', b.saslPort, {
      sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' },
    }).then(
      () => undefined as never,
      (err: KafkaClientError) => err,
    );
    expect(e.errorCode).toBe(ErrorCode.UNSUPPORTED_SASL_MECHANISM);
    expect(e.message).toMatch(/offers SCRAM-SHA-512\)/);
  });
});
