// Contract part: ACL bindings (issue 13): bindings are a set (creating one twice stores it once),
// deletion removes exact bindings only, and persistent engines keep them across a reopen.
import type { AclBinding } from '../../src/protocol/acl';
import type { ContractContext } from './fixtures';

const readTopic: AclBinding = {
  resourceType: 'TOPIC',
  resourceName: 'orders',
  patternType: 'LITERAL',
  principal: 'User:alice',
  host: '*',
  operation: 'READ',
  permissionType: 'ALLOW',
};
const denyPrefix: AclBinding = {
  ...readTopic,
  resourceName: 'ord',
  patternType: 'PREFIXED',
  host: '10.0.0.1',
  permissionType: 'DENY',
};
const groupAll: AclBinding = { ...readTopic, resourceType: 'GROUP', resourceName: 'g', operation: 'ALL' };

const sorted = (bs: AclBinding[]) => bs.map((b) => JSON.stringify(b)).sort();

export function aclsContract(ctx: ContractContext): void {
  describe('ACL bindings', () => {
    it('starts empty and lists what was created', async () => {
      expect(await ctx.s.listAcls()).toEqual([]);
      await ctx.s.createAcls([readTopic, denyPrefix]);
      await ctx.s.createAcls([groupAll]);
      expect(sorted(await ctx.s.listAcls())).toEqual(sorted([readTopic, denyPrefix, groupAll]));
    });

    it('stores a binding once however often it is created', async () => {
      await ctx.s.createAcls([readTopic, { ...readTopic }]);
      await ctx.s.createAcls([readTopic]);
      expect(await ctx.s.listAcls()).toEqual([readTopic]);
    });

    it('tells apart bindings differing in any one field', async () => {
      const variants: AclBinding[] = [
        readTopic,
        { ...readTopic, resourceType: 'GROUP' },
        { ...readTopic, resourceName: 'other' },
        { ...readTopic, patternType: 'PREFIXED' },
        { ...readTopic, principal: 'User:bob' },
        { ...readTopic, host: '127.0.0.1' },
        { ...readTopic, operation: 'WRITE' },
        { ...readTopic, permissionType: 'DENY' },
      ];
      await ctx.s.createAcls(variants);
      expect(await ctx.s.listAcls()).toHaveLength(variants.length);
    });

    it('deletes exact bindings only and counts those that existed', async () => {
      await ctx.s.createAcls([readTopic, denyPrefix, groupAll]);
      expect(await ctx.s.deleteAcls([readTopic, { ...groupAll, operation: 'READ' }])).toBe(1);
      expect(sorted(await ctx.s.listAcls())).toEqual(sorted([denyPrefix, groupAll]));
      expect(await ctx.s.deleteAcls([readTopic])).toBe(0);
    });

    it('hands out copies: changing a listed binding changes nothing stored', async () => {
      await ctx.s.createAcls([readTopic]);
      (await ctx.s.listAcls())[0]!.resourceName = 'changed';
      expect(await ctx.s.listAcls()).toEqual([readTopic]);
    });

    if (ctx.reopen) {
      it('keeps bindings across close and reopen', async () => {
        await ctx.s.createAcls([readTopic, denyPrefix]);
        await ctx.s.deleteAcls([denyPrefix]);
        await ctx.reopen!();
        expect(await ctx.s.listAcls()).toEqual([readTopic]);
      });
    }
  });
}
