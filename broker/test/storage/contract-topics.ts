// Contract part: identity, topics and configs, consumer group offsets, topic deletion.
import { ErrorCode } from '../../src/protocol/error-codes';
import { StorageError } from '../../src/storage/storage';
import { batch, NOW_MS, part } from './fixtures';
import type { ContractContext } from './fixtures';

export function topicsContract(ctx: ContractContext): void {
  describe('identity', () => {
    it('is created on first call and stable afterwards', async () => {
      const first = await ctx.s.identity({ nodeId: 7 });
      expect(first.nodeId).toBe(7);
      expect(first.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(await ctx.s.identity({ clusterId: 'ignored-now', nodeId: 9 })).toEqual(first);
    });
    it('defaults the node id to 1 and keeps a given cluster id', async () => {
      expect(await ctx.s.identity({ clusterId: 'MkU3OEVBNTcwNTJENDM2Qg' })).toEqual({
        clusterId: 'MkU3OEVBNTcwNTJENDM2Qg',
        nodeId: 1,
      });
    });
  });

  describe('topics', () => {
    it('creates, lists, finds by name and id', async () => {
      const a = await ctx.s.createTopic('a', 3, { 'retention.ms': '1000' });
      const b = await ctx.s.createTopic('b', 1, {}, 'AAAAAAAAAAAAAAAAAAAAAQ');
      expect(a).toEqual({
        name: 'a',
        topicId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        partitionCount: 3,
        configs: { 'retention.ms': '1000' },
      });
      expect(b.topicId).toBe('AAAAAAAAAAAAAAAAAAAAAQ');
      expect((await ctx.s.listTopics()).map((t) => t.name)).toEqual(['a', 'b']);
      expect(await ctx.s.topic('a')).toEqual(a);
      expect(await ctx.s.topicById(b.topicId)).toEqual(b);
      expect(await ctx.s.topic('nope')).toBeUndefined();
      expect(await ctx.s.topicById('AAAAAAAAAAAAAAAAAAAAAg')).toBeUndefined();
      expect(await ctx.s.offsets('a', 2)).toEqual({ logStartOffset: 0, highWatermark: 0 });
      expect(await ctx.s.offsets('a', 3)).toBeUndefined();
    });
    it('rejects a duplicate name or id and a bad partition count', async () => {
      const a = await ctx.s.createTopic('a', 1, {});
      await expect(ctx.s.createTopic('a', 1, {})).rejects.toThrow(StorageError);
      await expect(ctx.s.createTopic('b', 1, {}, a.topicId)).rejects.toThrow(/already used/);
      await expect(ctx.s.createTopic('c', 0, {})).rejects.toThrow(/partition count 0/);
      expect(await ctx.s.listTopics()).toHaveLength(1);
    });
    it('returns copies: changing a returned TopicInfo changes nothing', async () => {
      await ctx.s.createTopic('a', 1, { 'retention.ms': '5' });
      (await ctx.s.topic('a'))!.configs['retention.ms'] = '6';
      expect((await ctx.s.topic('a'))!.configs).toEqual({ 'retention.ms': '5' });
    });
    it('sets and removes config overrides', async () => {
      await ctx.s.createTopic('a', 1, { 'retention.ms': '1000', 'cleanup.policy': 'delete' });
      await ctx.s.alterTopicConfigs('a', { 'retention.ms': '2000', 'retention.bytes': '10' }, ['cleanup.policy']);
      expect((await ctx.s.topic('a'))!.configs).toEqual({ 'retention.ms': '2000', 'retention.bytes': '10' });
      await expect(ctx.s.alterTopicConfigs('nope', {}, [])).rejects.toThrow(/does not exist/);
    });
    it('keeps dynamic broker configs per resource (node id, or "" for the cluster default)', async () => {
      expect(await ctx.s.brokerConfigs('1')).toEqual({});
      await ctx.s.alterBrokerConfigs('1', { 'log.retention.ms': '1000', 'message.max.bytes': '2000' }, []);
      await ctx.s.alterBrokerConfigs('', { 'log.retention.ms': '5' }, []);
      await ctx.s.alterBrokerConfigs('1', { 'log.retention.ms': '3000' }, ['message.max.bytes', 'not.set']);
      expect(await ctx.s.brokerConfigs('1')).toEqual({ 'log.retention.ms': '3000' });
      expect(await ctx.s.brokerConfigs('')).toEqual({ 'log.retention.ms': '5' });
      (await ctx.s.brokerConfigs('1'))['log.retention.ms'] = 'changed';
      expect(await ctx.s.brokerConfigs('1')).toEqual({ 'log.retention.ms': '3000' });
      if (ctx.reopen) {
        await ctx.reopen();
        expect(await ctx.s.brokerConfigs('1')).toEqual({ 'log.retention.ms': '3000' });
        expect(await ctx.s.brokerConfigs('')).toEqual({ 'log.retention.ms': '5' });
      }
    });
    it('adds partitions that take appends, and never shrinks', async () => {
      await ctx.s.createTopic('a', 1, {});
      await ctx.s.createPartitions('a', 3);
      expect((await ctx.s.topic('a'))!.partitionCount).toBe(3);
      expect((await ctx.s.append([part('a', 2, [batch()])], NOW_MS))[0]!.errorCode).toBe(ErrorCode.NONE);
      expect((await ctx.s.offsets('a', 2))!.highWatermark).toBe(1);
      await expect(ctx.s.createPartitions('a', 2)).rejects.toThrow(/cannot shrink/);
    });
    // Issue 11: the catalog is updated per topic, not reloaded; every view of it must still agree.
    it('keeps the catalog consistent through creates, growth and deletes: sorted list, ids, offsets, total partitions', async () => {
      expect(await ctx.s.totalPartitions()).toBe(0);
      const c = await ctx.s.createTopic('c', 2, {});
      const a = await ctx.s.createTopic('a', 1, { 'retention.ms': '7' });
      const b = await ctx.s.createTopic('b', 3, {});
      expect((await ctx.s.listTopics()).map((t) => t.name)).toEqual(['a', 'b', 'c']);
      expect(await ctx.s.totalPartitions()).toBe(6);
      await ctx.s.createPartitions('a', 4);
      expect(await ctx.s.totalPartitions()).toBe(9);
      expect(await ctx.s.topicById(a.topicId)).toEqual({ ...a, partitionCount: 4 });
      expect(
        (await ctx.s.append([part('a', 3, [batch()]), part('b', 2, [batch()])], NOW_MS)).map((r) => r.errorCode),
      ).toEqual([0, 0]);
      await ctx.s.alterTopicConfigs('a', { 'retention.bytes': '9' }, []);

      expect(await ctx.s.deleteTopic('b')).toBe(true);
      expect(await ctx.s.deleteTopic('b')).toBe(false);
      expect(await ctx.s.totalPartitions()).toBe(6);
      expect(await ctx.s.topic('b')).toBeUndefined();
      expect(await ctx.s.topicById(b.topicId)).toBeUndefined();
      expect(await ctx.s.offsets('b', 0)).toBeUndefined();
      expect((await ctx.s.append([part('b', 0, [batch()])], NOW_MS))[0]!.errorCode).toBe(
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      );
      // The same name again is a new, empty topic with a new id.
      const b2 = await ctx.s.createTopic('b', 1, {});
      expect(b2.topicId).not.toBe(b.topicId);
      expect(await ctx.s.offsets('b', 0)).toEqual({ logStartOffset: 0, highWatermark: 0 });
      expect(await ctx.s.topicById(b.topicId)).toBeUndefined();

      const expected = [{ ...a, partitionCount: 4, configs: { 'retention.ms': '7', 'retention.bytes': '9' } }, b2, c];
      expect(await ctx.s.listTopics()).toEqual(expected);
      expect(await ctx.s.totalPartitions()).toBe(7);
      expect(await ctx.s.offsets('a', 3)).toEqual({ logStartOffset: 0, highWatermark: 1 });
      if (ctx.reopen) {
        await ctx.reopen(); // what was kept in the database is what the cache said
        expect(await ctx.s.listTopics()).toEqual(expected);
        expect(await ctx.s.totalPartitions()).toBe(7);
        expect(await ctx.s.offsets('a', 3)).toEqual({ logStartOffset: 0, highWatermark: 1 });
        expect(await ctx.s.topicById(b2.topicId)).toEqual(b2);
      }
    });
    it('keeps many topics apart: each found by name and id, counted once', async () => {
      const created = [];
      for (let i = 0; i < 500; i++)
        created.push(await ctx.s.createTopic(`t${String(i).padStart(3, '0')}`, 1 + (i % 3), {}));
      for (let i = 0; i < 500; i += 2) expect(await ctx.s.deleteTopic(created[i]!.name)).toBe(true);
      const kept = created.filter((_, i) => i % 2 === 1);
      expect(await ctx.s.listTopics()).toEqual(kept);
      expect(await ctx.s.totalPartitions()).toBe(kept.reduce((n, t) => n + t.partitionCount, 0));
      for (const t of kept) expect(await ctx.s.topicById(t.topicId)).toEqual(t);
      for (let i = 0; i < 500; i += 2) expect(await ctx.s.topicById(created[i]!.topicId)).toBeUndefined();
    });
  });

  describe('createTopics and deleteTopics (a slice of a CreateTopics / DeleteTopics)', () => {
    it('answers each topic on its own: a refused one leaves the others created', async () => {
      await ctx.s.createTopic('taken', 1, {});
      const res = await ctx.s.createTopics([
        { name: 'a', partitionCount: 2, configs: { 'retention.ms': '7' } },
        { name: 'taken', partitionCount: 1, configs: {} },
        { name: 'zero', partitionCount: 0, configs: {} },
        { name: 'b', partitionCount: 1, configs: {}, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' },
        { name: 'same-id', partitionCount: 1, configs: {}, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' },
      ]);
      expect(res.map((r) => (r instanceof StorageError ? 'refused' : r.name))).toEqual([
        'a',
        'refused',
        'refused',
        'b',
        'refused',
      ]);
      expect(res[0]).toEqual(await ctx.s.topic('a'));
      expect((await ctx.s.listTopics()).map((t) => [t.name, t.partitionCount])).toEqual([
        ['a', 2],
        ['b', 1],
        ['taken', 1],
      ]);
      expect(await ctx.s.totalPartitions()).toBe(4);
      expect((await ctx.s.topicById('AAAAAAAAAAAAAAAAAAAAAQ'))!.name).toBe('b');
      expect(await ctx.s.offsets('a', 1)).toEqual({ logStartOffset: 0, highWatermark: 0 });
    });
    it('deletes each name on its own: false for one that does not exist', async () => {
      await ctx.s.createTopics(['a', 'b', 'c'].map((name) => ({ name, partitionCount: 2, configs: {} })));
      await ctx.s.append([part('b', 1, [batch()])], NOW_MS);
      expect(await ctx.s.deleteTopics(['a', 'nope', 'b'])).toEqual([true, false, true]);
      expect((await ctx.s.listTopics()).map((t) => t.name)).toEqual(['c']);
      expect(await ctx.s.totalPartitions()).toBe(2);
      expect((await ctx.s.read('b', 1, 0, 1e6)).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      expect(await ctx.s.deleteTopics([])).toEqual([]);
    });
  });

  describe('group offsets', () => {
    const o = (topic: string, partition: number, offset: number, metadata: string | null = null) => ({
      topic,
      partition,
      offset,
      leaderEpoch: -1,
      metadata,
    });
    it('commits, overwrites, fetches and lists groups', async () => {
      await ctx.s.commitOffsets('g1', [o('a', 0, 5, 'm'), o('a', 1, 7)], NOW_MS);
      await ctx.s.commitOffsets('g1', [o('a', 0, 6)], NOW_MS + 1);
      await ctx.s.commitOffsets('g2', [o('b', 0, 1)], NOW_MS);
      const sorted = (await ctx.s.fetchOffsets('g1')).sort((x, y) => x.partition - y.partition);
      expect(sorted).toEqual([
        { ...o('a', 0, 6), commitTimestampMs: NOW_MS + 1 },
        { ...o('a', 1, 7), commitTimestampMs: NOW_MS },
      ]);
      expect((await ctx.s.offsetGroups()).sort()).toEqual(['g1', 'g2']);
      expect(await ctx.s.fetchOffsets('nope')).toEqual([]);
    });
    it('deletes some partitions or the whole group', async () => {
      await ctx.s.commitOffsets('g', [o('a', 0, 1), o('a', 1, 2), o('b', 0, 3)], NOW_MS);
      await ctx.s.deleteOffsets('g', [{ topic: 'a', partition: 1 }]);
      expect((await ctx.s.fetchOffsets('g')).map((x) => `${x.topic}-${x.partition}`).sort()).toEqual(['a-0', 'b-0']);
      await ctx.s.deleteOffsets('g');
      expect(await ctx.s.fetchOffsets('g')).toEqual([]);
      expect(await ctx.s.offsetGroups()).toEqual([]);
    });
  });

  describe('deleteTopic', () => {
    it('removes exactly that topic: batches, configs, producer state, offsets', async () => {
      await ctx.s.createTopic('gone', 2, { 'retention.ms': '1' });
      await ctx.s.createTopic('kept', 1, {});
      const { producerId } = await ctx.s.initProducerId(null, NOW_MS);
      const idem = batch({ producerId, producerEpoch: 0, baseSequence: 0 });
      await ctx.s.append(
        [part('gone', 0, [idem]), part('gone', 1, [batch()]), part('kept', 0, [batch(), batch()])],
        NOW_MS,
      );
      await ctx.s.commitOffsets(
        'g',
        [{ topic: 'gone', partition: 0, offset: 1, leaderEpoch: 0, metadata: null }],
        NOW_MS,
      );
      await ctx.s.commitOffsets(
        'g',
        [{ topic: 'kept', partition: 0, offset: 2, leaderEpoch: 0, metadata: null }],
        NOW_MS,
      );

      expect(await ctx.s.deleteTopic('gone')).toBe(true);
      expect(await ctx.s.deleteTopic('gone')).toBe(false);
      expect(await ctx.s.topic('gone')).toBeUndefined();
      expect((await ctx.s.read('gone', 0, 0, 1e6)).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      expect((await ctx.s.fetchOffsets('g')).map((x) => x.topic)).toEqual(['kept']);
      expect((await ctx.s.read('kept', 0, 0, 1e6)).batches).toHaveLength(2);

      // Recreated: empty, new id, no configs, and the old producer state is gone (seq 0 again).
      const again = await ctx.s.createTopic('gone', 1, {});
      expect(again.configs).toEqual({});
      expect(await ctx.s.offsets('gone', 0)).toEqual({ logStartOffset: 0, highWatermark: 0 });
      const dup = batch({ producerId, producerEpoch: 0, baseSequence: 0 });
      expect((await ctx.s.append([part('gone', 0, [dup])], NOW_MS))[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
      expect((await ctx.s.offsets('gone', 0))!.highWatermark).toBe(1);
    });
  });
}
