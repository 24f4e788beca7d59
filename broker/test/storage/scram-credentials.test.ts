// Contract for SASL/SCRAM credential storage, run against every engine (sqlite:// also across a
// close and reopen): per (user, mechanism), only salt, iterations, StoredKey and ServerKey.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialFromPassword } from '../../src/sasl/scram-crypto';
import { MemoryStorage } from '../../src/storage/memory/memory-storage';
import { SqliteStorage } from '../../src/storage/sqlite/sqlite-storage';
import type { Storage, UserScramCredential } from '../../src/storage/storage';

const dir = mkdtempSync(join(tmpdir(), 'minnow-scram-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const engines: [string, () => Storage, ((s: Storage) => Storage) | undefined][] = [
  ['memory', () => new MemoryStorage(), undefined],
  [
    'sqlite',
    () => new SqliteStorage(join(dir, `s${++n}.db`)),
    (s) => {
      s.close();
      return new SqliteStorage((s as SqliteStorage).path);
    },
  ],
];

async function cred(user: string, mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', password: string, iterations = 4096) {
  return { user, mechanism, ...(await credentialFromPassword(mechanism, password, iterations)) } as UserScramCredential;
}

describe.each(engines)('%s storage: SCRAM credentials', (_name, make, reopen) => {
  let s: Storage;
  beforeEach(() => {
    s = make();
  });
  afterEach(() => s.close());

  it('stores, lists and replaces a credential per (user, mechanism)', async () => {
    expect(s.scramCredentials()).toEqual([]);
    const a256 = await cred('alice', 'SCRAM-SHA-256', 'pw1');
    const a512 = await cred('alice', 'SCRAM-SHA-512', 'pw1', 8192);
    const b256 = await cred('bob', 'SCRAM-SHA-256', 'pw2');
    s.alterScramCredentials([b256, a512, a256], []);
    expect(s.scramCredentials()).toEqual([
      { user: 'alice', mechanism: 'SCRAM-SHA-256', iterations: 4096 },
      { user: 'alice', mechanism: 'SCRAM-SHA-512', iterations: 8192 },
      { user: 'bob', mechanism: 'SCRAM-SHA-256', iterations: 4096 },
    ]);
    expect(s.scramCredential('alice', 'SCRAM-SHA-512')).toEqual({
      salt: a512.salt,
      iterations: 8192,
      storedKey: a512.storedKey,
      serverKey: a512.serverKey,
    });
    expect(s.scramCredential('bob', 'SCRAM-SHA-512')).toBeUndefined();
    expect(s.scramCredential('carol', 'SCRAM-SHA-256')).toBeUndefined();

    const replaced = await cred('alice', 'SCRAM-SHA-256', 'new', 5000);
    s.alterScramCredentials([replaced], []);
    expect(s.scramCredential('alice', 'SCRAM-SHA-256')!.storedKey).toEqual(replaced.storedKey);
    expect(s.scramCredentials()).toHaveLength(3);
  });

  it('deletes and upserts in one call', async () => {
    s.alterScramCredentials([await cred('alice', 'SCRAM-SHA-256', 'pw')], []);
    s.alterScramCredentials(
      [await cred('bob', 'SCRAM-SHA-512', 'pw')],
      [{ user: 'alice', mechanism: 'SCRAM-SHA-256' }],
    );
    expect(s.scramCredentials().map((c) => c.user)).toEqual(['bob']);
    // Deleting what is not there changes nothing (the API layer reports RESOURCE_NOT_FOUND first).
    s.alterScramCredentials([], [{ user: 'nobody', mechanism: 'SCRAM-SHA-256' }]);
    expect(s.scramCredentials()).toHaveLength(1);
  });

  it('hands out copies: changing a returned buffer changes nothing stored', async () => {
    const c = await cred('alice', 'SCRAM-SHA-256', 'pw');
    s.alterScramCredentials([c], []);
    s.scramCredential('alice', 'SCRAM-SHA-256')!.storedKey.fill(0);
    expect(s.scramCredential('alice', 'SCRAM-SHA-256')!.storedKey).toEqual(c.storedKey);
  });

  if (reopen) {
    it('keeps credentials across close and reopen, and no password is in the file', async () => {
      const c = await cred('alice', 'SCRAM-SHA-512', 'a-very-distinct-password');
      s.alterScramCredentials([c], []);
      s = reopen(s);
      expect(s.scramCredential('alice', 'SCRAM-SHA-512')).toEqual({
        salt: c.salt,
        iterations: 4096,
        storedKey: c.storedKey,
        serverKey: c.serverKey,
      });
      const path = (s as SqliteStorage).path;
      s.close();
      expect(readFileSync(path).includes('a-very-distinct-password')).toBe(false);
      s = reopen(new SqliteStorage(path));
    });
  }
});
