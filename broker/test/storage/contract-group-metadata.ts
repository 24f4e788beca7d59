// Contract part: classic group membership (storage/group-metadata.ts), as each rebalance writes it:
// replaced whole, members in join order, blobs and NULLs kept; persistent engines keep it across a
// reopen.
import type { StoredGroup } from '../../src/storage/storage';
import type { ContractContext } from './fixtures';
import { NOW_MS } from './fixtures';

const member = (memberId: string, groupInstanceId: string | null, assignment: number[]) => ({
  memberId,
  groupInstanceId,
  clientId: `client-${memberId}`,
  clientHost: '/127.0.0.1',
  rebalanceTimeoutMs: 60_000,
  sessionTimeoutMs: 10_000,
  subscription: Buffer.from([0, 1, 0, 0, 0, 1, 0, 1, 0x74]),
  assignment: Buffer.from(assignment),
});

const stable: StoredGroup = {
  groupId: 'g',
  protocolType: 'consumer',
  generationId: 7,
  protocolName: 'range',
  leaderId: 'z-member',
  updatedMs: NOW_MS,
  // Join order is not the id order: it must come back as stored.
  members: [member('z-member', null, [1, 2, 3]), member('a-member', 'instance-1', [])],
};

export function groupMetadataContract(ctx: ContractContext): void {
  describe('group metadata', () => {
    it('stores a group, replaces it whole and deletes it', async () => {
      expect(await ctx.s.groupMetadata('g')).toBeUndefined();
      await ctx.s.storeGroupMetadata('g', stable);
      await ctx.s.storeGroupMetadata('other', { ...stable, groupId: 'other', members: [] });
      expect(await ctx.s.groupMetadata('g')).toEqual(stable);

      // The next generation with one member left: the other member's row goes.
      const next: StoredGroup = {
        ...stable,
        generationId: 8,
        leaderId: 'a-member',
        updatedMs: NOW_MS + 1,
        members: [member('a-member', 'instance-1', [9])],
      };
      await ctx.s.storeGroupMetadata('g', next);
      expect(await ctx.s.groupMetadata('g')).toEqual(next);

      // An Empty group keeps its generation, with no members, protocol or leader.
      const empty: StoredGroup = { ...next, generationId: 9, protocolName: null, leaderId: null, members: [] };
      await ctx.s.storeGroupMetadata('g', empty);
      expect(await ctx.s.groupMetadata('g')).toEqual(empty);

      await ctx.s.storeGroupMetadata('g', null);
      expect(await ctx.s.groupMetadata('g')).toBeUndefined();
      expect((await ctx.s.groupMetadata('other'))?.generationId).toBe(7);
    });

    if (ctx.reopen) {
      it('keeps a group across close and reopen', async () => {
        await ctx.s.storeGroupMetadata('g', stable);
        await ctx.reopen!();
        expect(await ctx.s.groupMetadata('g')).toEqual(stable);
      });
    }
  });
}
