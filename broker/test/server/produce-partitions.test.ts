// The partitions a Produce names, each once (src/server/produce-partitions.ts): Kafka keys a produce
// by partition, so a partition named twice is produced once with its last records, in first-mention order.
import { producedPartitions } from '../../src/server/produce-partitions';

const rec = (s: string) => Buffer.from(s);

describe('producedPartitions', () => {
  it('gives the request its own arrays back when every partition is named once', () => {
    const topicData = [
      {
        name: 'a',
        partitionData: [
          { index: 0, records: rec('a0') },
          { index: 1, records: null },
        ],
      },
      { name: 'b', partitionData: [{ index: 0, records: rec('b0') }] },
    ];
    expect(producedPartitions(topicData)).toBe(topicData);
  });

  it('keeps a partition named twice once, with its last records, where it was first named', () => {
    const topicData = [
      {
        name: 'a',
        partitionData: [
          { index: 1, records: rec('first') },
          { index: 0, records: rec('a0') },
        ],
      },
      { name: 'b', partitionData: [{ index: 0, records: rec('b0') }] },
      {
        name: 'a',
        partitionData: [
          { index: 1, records: rec('last') },
          { index: 2, records: rec('a2') },
        ],
      },
    ];
    expect(producedPartitions(topicData)).toEqual([
      {
        name: 'a',
        partitionData: [
          { index: 1, records: rec('last') },
          { index: 0, records: rec('a0') },
          { index: 2, records: rec('a2') },
        ],
      },
      { name: 'b', partitionData: [{ index: 0, records: rec('b0') }] },
    ]);
  });

  it('finds a repeat among many partitions too (past the pairwise comparison)', () => {
    const parts = Array.from({ length: 40 }, (_, i) => ({ index: i, records: rec(`${i}`) }));
    expect(producedPartitions([{ name: 't', partitionData: parts }])[0]!.partitionData).toBe(parts);
    const twice = [...parts, { index: 7, records: rec('again') }];
    const out = producedPartitions([{ name: 't', partitionData: twice }])[0]!.partitionData;
    expect(out).toHaveLength(40);
    expect(out[7]!.records).toEqual(rec('again'));
  });
});
