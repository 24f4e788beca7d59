// Contract part: client quotas (KIP-546): what AlterClientQuotas stores is what
// DescribeClientQuotas and the quota managers read back, defaults included.
import type { ClientQuotaEntry } from '../../src/storage/storage';
import type { ContractContext } from './fixtures';

/** Entries sorted by their entity's JSON, so engines' orders compare equal. */
const sorted = (entries: ClientQuotaEntry[]) =>
  [...entries].sort((a, b) => JSON.stringify(a.entity).localeCompare(JSON.stringify(b.entity)));

export function clientQuotasContract(ctx: ContractContext): void {
  describe('client quotas', () => {
    it('starts with none', async () => {
      expect(await ctx.s.clientQuotas()).toEqual([]);
    });

    it('sets, overwrites and removes keys per entity, defaults (null names) apart from named ones', async () => {
      await ctx.s.alterClientQuotas([
        { entity: { user: 'alice', 'client-id': 'app' }, set: { producer_byte_rate: 1024 }, remove: [] },
        { entity: { user: 'alice' }, set: { consumer_byte_rate: 2048, request_percentage: 12.5 }, remove: [] },
        { entity: { user: null }, set: { producer_byte_rate: 100 }, remove: [] },
        { entity: { ip: null }, set: { connection_creation_rate: 5 }, remove: [] },
      ]);
      await ctx.s.alterClientQuotas([
        { entity: { 'client-id': 'app', user: 'alice' }, set: { producer_byte_rate: 4096 }, remove: [] },
        { entity: { user: 'alice' }, set: {}, remove: ['consumer_byte_rate', 'not_there'] },
      ]);
      expect(sorted(await ctx.s.clientQuotas())).toEqual(
        sorted([
          { entity: { 'client-id': 'app', user: 'alice' }, values: { producer_byte_rate: 4096 } },
          { entity: { user: 'alice' }, values: { request_percentage: 12.5 } },
          { entity: { user: null }, values: { producer_byte_rate: 100 } },
          { entity: { ip: null }, values: { connection_creation_rate: 5 } },
        ]),
      );
    });

    it('forgets an entity once its last key is removed', async () => {
      await ctx.s.alterClientQuotas([{ entity: { 'client-id': 'c' }, set: { producer_byte_rate: 10 }, remove: [] }]);
      await ctx.s.alterClientQuotas([{ entity: { 'client-id': 'c' }, set: {}, remove: ['producer_byte_rate'] }]);
      expect(await ctx.s.clientQuotas()).toEqual([]);
    });

    it('returns copies: changing a result does not change what is stored', async () => {
      await ctx.s.alterClientQuotas([{ entity: { user: 'bob' }, set: { producer_byte_rate: 10 }, remove: [] }]);
      (await ctx.s.clientQuotas())[0]!.values.producer_byte_rate = 99;
      expect((await ctx.s.clientQuotas())[0]!.values).toEqual({ producer_byte_rate: 10 });
    });

    if (ctx.reopen) {
      it('keeps quotas across close and reopen', async () => {
        await ctx.s.alterClientQuotas([
          { entity: { user: null, 'client-id': null }, set: { consumer_byte_rate: 3e9 }, remove: [] },
          { entity: { ip: '10.0.0.1' }, set: { connection_creation_rate: 7 }, remove: [] },
        ]);
        const before = sorted(await ctx.s.clientQuotas());
        await ctx.reopen!();
        expect(sorted(await ctx.s.clientQuotas())).toEqual(before);
        expect(before).toHaveLength(2);
      });
    }
  });
}
