// Contract part: SASL/SCRAM credential storage: per (user, mechanism), only salt, iterations,
// StoredKey and ServerKey; persistent engines keep them across a reopen.
import { credentialFromPassword } from '../../src/sasl/scram-crypto';
import type { UserScramCredential } from '../../src/storage/storage';
import type { ContractContext } from './fixtures';

export async function cred(
  user: string,
  mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512',
  password: string,
  iterations = 4096,
) {
  return { user, mechanism, ...(await credentialFromPassword(mechanism, password, iterations)) } as UserScramCredential;
}

export function scramContract(ctx: ContractContext): void {
  describe('SCRAM credentials', () => {
    it('stores, lists and replaces a credential per (user, mechanism)', async () => {
      expect(await ctx.s.scramCredentials()).toEqual([]);
      const a256 = await cred('alice', 'SCRAM-SHA-256', 'pw1');
      const a512 = await cred('alice', 'SCRAM-SHA-512', 'pw1', 8192);
      const b256 = await cred('bob', 'SCRAM-SHA-256', 'pw2');
      await ctx.s.alterScramCredentials([b256, a512, a256], []);
      expect(await ctx.s.scramCredentials()).toEqual([
        { user: 'alice', mechanism: 'SCRAM-SHA-256', iterations: 4096 },
        { user: 'alice', mechanism: 'SCRAM-SHA-512', iterations: 8192 },
        { user: 'bob', mechanism: 'SCRAM-SHA-256', iterations: 4096 },
      ]);
      expect(await ctx.s.scramCredential('alice', 'SCRAM-SHA-512')).toEqual({
        salt: a512.salt,
        iterations: 8192,
        storedKey: a512.storedKey,
        serverKey: a512.serverKey,
      });
      expect(await ctx.s.scramCredential('bob', 'SCRAM-SHA-512')).toBeUndefined();
      expect(await ctx.s.scramCredential('carol', 'SCRAM-SHA-256')).toBeUndefined();

      const replaced = await cred('alice', 'SCRAM-SHA-256', 'new', 5000);
      await ctx.s.alterScramCredentials([replaced], []);
      expect((await ctx.s.scramCredential('alice', 'SCRAM-SHA-256'))!.storedKey).toEqual(replaced.storedKey);
      expect(await ctx.s.scramCredentials()).toHaveLength(3);
    });

    it('deletes and upserts in one call', async () => {
      await ctx.s.alterScramCredentials([await cred('alice', 'SCRAM-SHA-256', 'pw')], []);
      await ctx.s.alterScramCredentials(
        [await cred('bob', 'SCRAM-SHA-512', 'pw')],
        [{ user: 'alice', mechanism: 'SCRAM-SHA-256' }],
      );
      expect((await ctx.s.scramCredentials()).map((c) => c.user)).toEqual(['bob']);
      // Deleting what is not there changes nothing (the API layer reports RESOURCE_NOT_FOUND first).
      await ctx.s.alterScramCredentials([], [{ user: 'nobody', mechanism: 'SCRAM-SHA-256' }]);
      expect(await ctx.s.scramCredentials()).toHaveLength(1);
    });

    it('hands out copies: changing a returned buffer changes nothing stored', async () => {
      const c = await cred('alice', 'SCRAM-SHA-256', 'pw');
      await ctx.s.alterScramCredentials([c], []);
      (await ctx.s.scramCredential('alice', 'SCRAM-SHA-256'))!.storedKey.fill(0);
      expect((await ctx.s.scramCredential('alice', 'SCRAM-SHA-256'))!.storedKey).toEqual(c.storedKey);
    });

    if (ctx.reopen) {
      it('keeps credentials across close and reopen', async () => {
        const c = await cred('alice', 'SCRAM-SHA-512', 'a-very-distinct-password');
        await ctx.s.alterScramCredentials([c], []);
        await ctx.reopen!();
        expect(await ctx.s.scramCredential('alice', 'SCRAM-SHA-512')).toEqual({
          salt: c.salt,
          iterations: 4096,
          storedKey: c.storedKey,
          serverKey: c.serverKey,
        });
      });
    }
  });
}
