// SCRAM against RFC 7677's SHA-256 test vector, and SCRAM-SHA-512 / PLAIN round trips between the
// server mechanisms and minnow's own client.
import {
  clientKey,
  hash,
  hmac,
  xor,
  credentialFromPassword,
  credentialFromSaltedPassword,
  saltedPassword,
  ScramCredential,
  ScramMechanismName,
} from '../../src/sasl/scram-crypto';
import { plainMessage, ScramClient } from '../../src/sasl/scram-client';
import { decodeSaslName, encodeSaslName, parseClientFirst } from '../../src/sasl/scram-messages';
import { PlainServer, PLAIN_INVALID, ScramServer } from '../../src/server/sasl/mechanism-servers';

// RFC 7677 section 3.
const RFC7677 = {
  user: 'user',
  password: 'pencil',
  clientFirst: 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO',
  serverNonce: '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  serverFirst: 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
  clientFinal:
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  serverFinal: 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
};

async function rfcCredential(): Promise<ScramCredential> {
  const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
  return credentialFromSaltedPassword(
    'SCRAM-SHA-256',
    salt,
    4096,
    await saltedPassword('SCRAM-SHA-256', RFC7677.password, salt, 4096),
  );
}

function store(entries: Record<string, ScramCredential>) {
  return (user: string, mechanism: ScramMechanismName) => entries[`${user}/${mechanism}`];
}

describe('SCRAM-SHA-256 server (RFC 7677 test vector)', () => {
  it('answers the RFC server-first and server-final messages and names the user', async () => {
    const server = new ScramServer('SCRAM-SHA-256', store({ 'user/SCRAM-SHA-256': await rfcCredential() }), {
      serverNonce: () => RFC7677.serverNonce,
    });
    const first = await server.step(Buffer.from(RFC7677.clientFirst));
    expect(first).toEqual({ kind: 'continue', response: Buffer.from(RFC7677.serverFirst) });
    const final = await server.step(Buffer.from(RFC7677.clientFinal));
    expect(final).toEqual({ kind: 'done', response: Buffer.from(RFC7677.serverFinal), user: 'user' });
  });

  it('the client computes the RFC proof and accepts the RFC server signature', async () => {
    const client = new ScramClient('SCRAM-SHA-256', 'user', 'pencil', 'rOprNGfwEbeRWgbNEkqO');
    expect(client.firstMessage().toString()).toBe(RFC7677.clientFirst);
    expect((await client.finalMessage(Buffer.from(RFC7677.serverFirst))).toString()).toBe(RFC7677.clientFinal);
    expect(() => client.verifyServerFinal(Buffer.from(RFC7677.serverFinal))).not.toThrow();
    expect(() => client.verifyServerFinal(Buffer.from('v=AAAA'))).toThrow(/signature is wrong/);
  });

  it("accepts librdkafka <2.1's final nonce (its own nonce again in front), as Kafka's endsWith check does", async () => {
    const server = new ScramServer('SCRAM-SHA-256', store({ 'user/SCRAM-SHA-256': await rfcCredential() }), {
      serverNonce: () => RFC7677.serverNonce,
    });
    await server.step(Buffer.from(RFC7677.clientFirst));
    // What librdkafka 2.0.2 sends (seen with kcat): r = its nonce + the server's whole nonce, signed as sent.
    const withoutProof = `c=biws,r=rOprNGfwEbeRWgbNEkqO${RFC7677.serverFirst.slice(2, RFC7677.serverFirst.indexOf(','))}`;
    const salted = await saltedPassword(
      'SCRAM-SHA-256',
      'pencil',
      Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'),
      4096,
    );
    const ck = clientKey('SCRAM-SHA-256', salted);
    const authMessage = `n=user,r=rOprNGfwEbeRWgbNEkqO,${RFC7677.serverFirst},${withoutProof}`;
    const proof = xor(ck, hmac('SCRAM-SHA-256', hash('SCRAM-SHA-256', ck), authMessage));
    const final = Buffer.from(`${withoutProof},p=${proof.toString('base64')}`);
    expect(await server.step(final)).toMatchObject({ kind: 'done', user: 'user' });
  });

  it('stores only salt, iterations, StoredKey and ServerKey', async () => {
    const c = await rfcCredential();
    expect(Object.keys(c).sort()).toEqual(['iterations', 'salt', 'serverKey', 'storedKey']);
    expect(JSON.stringify(c)).not.toContain('pencil');
  });

  it('refuses a wrong proof, a changed nonce and a wrong channel binding', async () => {
    const lookup = store({ 'user/SCRAM-SHA-256': await rfcCredential() });
    const badProof = RFC7677.clientFinal.replace('p=dHzb', 'p=dHzc');
    const badNonce = RFC7677.clientFinal.replace('k0,p=', 'k1,p=');
    const badBinding = RFC7677.clientFinal.replace('c=biws', 'c=eSws');
    for (const final of [badProof, badNonce, badBinding]) {
      const server = new ScramServer('SCRAM-SHA-256', lookup, { serverNonce: () => RFC7677.serverNonce });
      await server.step(Buffer.from(RFC7677.clientFirst));
      expect(await server.step(Buffer.from(final))).toEqual({ kind: 'failed', user: 'user' });
    }
  });
});

describe.each(['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const)('%s round trip', (mechanism) => {
  async function login(user: string, password: string, lookup: ReturnType<typeof store>) {
    const server = new ScramServer(mechanism, lookup);
    const client = new ScramClient(mechanism, user, password);
    const first = await server.step(client.firstMessage());
    if (first.kind !== 'continue') return first;
    const final = await server.step(await client.finalMessage(first.response));
    if (final.kind === 'done') client.verifyServerFinal(final.response);
    return final;
  }

  it('the right password logs in; a wrong one and an unknown user fail alike', async () => {
    const lookup = store({ [`alice/${mechanism}`]: await credentialFromPassword(mechanism, 's3cret') });
    expect(await login('alice', 's3cret', lookup)).toMatchObject({ kind: 'done', user: 'alice' });
    const wrong = await login('alice', 'nope', lookup);
    const unknown = await login('mallory', 's3cret', lookup);
    expect(wrong).toEqual({ kind: 'failed', user: 'alice' });
    expect(unknown).toEqual({ kind: 'failed', user: 'mallory' });
  });

  it('an unknown user gets a salt that stays the same between attempts (no tell)', async () => {
    const salts = [];
    for (let i = 0; i < 2; i++) {
      const s = await new ScramServer(mechanism, store({})).step(
        new ScramClient(mechanism, 'ghost', 'x').firstMessage(),
      );
      salts.push(s.kind === 'continue' ? /s=([^,]+)/.exec(s.response.toString())![1] : undefined);
    }
    expect(salts[0]).toBeDefined();
    expect(salts[1]).toBe(salts[0]);
  });

  it('tokenauth=true (a delegation token) fails: minnow has none', async () => {
    const lookup = store({ [`alice/${mechanism}`]: await credentialFromPassword(mechanism, 's3cret') });
    const server = new ScramServer(mechanism, lookup);
    const client = new ScramClient(mechanism, 'alice', 's3cret', 'abcdefgh', { tokenauth: 'true' });
    const first = await server.step(client.firstMessage());
    expect(first.kind).toBe('continue');
    const final = await server.step(await client.finalMessage((first as { response: Buffer }).response));
    expect(final).toEqual({ kind: 'failed', user: 'alice' });
  });

  it('tokenauth=false is an ordinary login', async () => {
    const lookup = store({ [`alice/${mechanism}`]: await credentialFromPassword(mechanism, 's3cret') });
    const server = new ScramServer(mechanism, lookup);
    const client = new ScramClient(mechanism, 'alice', 's3cret', 'abcdefgh', { tokenauth: 'false' });
    expect(client.firstMessage().toString()).toBe('n,,n=alice,r=abcdefgh,tokenauth=false');
    const first = await server.step(client.firstMessage());
    const final = await server.step(await client.finalMessage((first as { response: Buffer }).response));
    expect(final).toMatchObject({ kind: 'done', user: 'alice' });
  });

  it('refuses an authzid other than the user, garbage, and channel binding', async () => {
    const lookup = store({ [`alice/${mechanism}`]: await credentialFromPassword(mechanism, 's3cret') });
    const step1 = (t: string) => new ScramServer(mechanism, lookup).step(Buffer.from(t));
    expect(await step1('n,a=bob,n=alice,r=abc')).toMatchObject({
      kind: 'failed',
      message: expect.stringMatching(/authorization id/),
    });
    expect(await step1('garbage')).toEqual({ kind: 'failed' });
    expect(await step1('p=tls-unique,,n=alice,r=abc')).toEqual({ kind: 'failed' });
    expect(await step1('n,,n=alice,r=a,b')).toEqual({ kind: 'failed' });
  });
});

describe('SCRAM user names', () => {
  it('decodes =2C and =3D and refuses other escapes', () => {
    expect(decodeSaslName('a=2Cb=3Dc')).toBe('a,b=c');
    expect(encodeSaslName('a,b=c')).toBe('a=2Cb=3Dc');
    expect(() => decodeSaslName('a=41')).toThrow(/escape/);
    expect(parseClientFirst('n,,n=a=2Cb,r=xyz').user).toBe('a,b');
  });
});

describe('PLAIN server against stored SCRAM keys', () => {
  it('accepts the password of either SCRAM credential and refuses wrong ones alike', async () => {
    const lookup = store({ 'alice/SCRAM-SHA-512': await credentialFromPassword('SCRAM-SHA-512', 'pw') });
    const plain = new PlainServer(lookup);
    expect(await plain.step(plainMessage('alice', 'pw'))).toMatchObject({ kind: 'done', user: 'alice' });
    expect(await new PlainServer(lookup).step(plainMessage('alice', 'pX'))).toEqual({
      kind: 'failed',
      message: PLAIN_INVALID,
      user: 'alice',
    });
    expect(await new PlainServer(lookup).step(plainMessage('nobody', 'pw'))).toEqual({
      kind: 'failed',
      message: PLAIN_INVALID,
      user: 'nobody',
    });
  });

  it("answers Kafka's messages for malformed tokens and a foreign authzid", async () => {
    const lookup = store({ 'alice/SCRAM-SHA-256': await credentialFromPassword('SCRAM-SHA-256', 'pw') });
    const step = (s: string) => new PlainServer(lookup).step(Buffer.from(s));
    expect(await step('alice')).toEqual({
      kind: 'failed',
      message: 'Invalid SASL/PLAIN response: expected 3 tokens, got 1',
    });
    expect(await step('\0\0pw')).toEqual({ kind: 'failed', message: 'Authentication failed: username not specified' });
    expect(await step('\0alice\0')).toEqual({
      kind: 'failed',
      message: 'Authentication failed: password not specified',
    });
    expect(await step('bob\0alice\0pw')).toMatchObject({
      kind: 'failed',
      message: expect.stringMatching(/authorization id/),
    });
    expect(await step('alice\0alice\0pw')).toMatchObject({ kind: 'done', user: 'alice' });
  });
});
