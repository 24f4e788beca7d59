import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rangeAssign } from '../../src/perf/group';
import { makePayloads, payloadsFromFile, randomPayloads, recordsPerBatch } from '../../src/perf/payload';
import { encodeRecordBatch } from '../../src/protocol/record-batch';

describe('payloads', () => {
  it('are repeatable, distinct, printable A-Z of the asked size', () => {
    const a = randomPayloads(100, 8);
    expect(a).toHaveLength(8);
    expect(a.every((b) => b.length === 100 && /^[A-Z]+$/.test(b.toString()))).toBe(true);
    expect(new Set(a.map((b) => b.toString())).size).toBe(8);
    expect(randomPayloads(100, 8).map(String)).toEqual(a.map(String));
  });

  it('rotate values and keys by record index', () => {
    const p = makePayloads([Buffer.from('a'), Buffer.from('bb')], 3);
    expect([0, 1, 2, 3].map((i) => p.value(i).toString())).toEqual(['a', 'bb', 'a', 'bb']);
    expect([0, 1, 2, 3].map((i) => p.key(i)!.toString())).toEqual(['0', '1', '2', '0']);
    expect(p.meanValueBytes).toBe(1.5);
    expect(makePayloads([Buffer.from('a')], 0).key(5)).toBeNull();
  });

  it('split a payload file on the delimiter, dropping empty records', () => {
    const dir = mkdtempSync(join(tmpdir(), 'minnow-payload-'));
    try {
      writeFileSync(join(dir, 'p.txt'), 'one\ntwo\n\nthree\n');
      expect(payloadsFromFile(join(dir, 'p.txt'), '\n').map(String)).toEqual(['one', 'two', 'three']);
      writeFileSync(join(dir, 'e.txt'), '\n\n');
      expect(() => payloadsFromFile(join(dir, 'e.txt'), '\n')).toThrow(/no records/);
      expect(() => payloadsFromFile(join(dir, 'missing.txt'), '\n')).toThrow(/--payload-file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [16384, 1024],
    [1_000_000, 1024],
    [262144, 100],
    [1_048_576, 1024],
  ])('size batches so a %d-byte batch.size holds %d-byte records without exceeding it', (batchSize, recordSize) => {
    const n = recordsPerBatch(batchSize, recordSize);
    const value = Buffer.alloc(recordSize, 65);
    const encoded = encodeRecordBatch({ records: Array.from({ length: n }, () => ({ value })) });
    expect(encoded.length).toBeLessThanOrEqual(batchSize);
    expect(encoded.length).toBeGreaterThan(batchSize * 0.94);
  });
});

describe('rangeAssign (Kafka RangeAssignor, one topic)', () => {
  it('gives contiguous ranges, the first members one more', () => {
    expect(rangeAssign(['b', 'a', 'c'], [0, 1, 2, 3, 4, 5, 6])).toEqual(
      new Map([
        ['a', [0, 1, 2]],
        ['b', [3, 4]],
        ['c', [5, 6]],
      ]),
    );
    expect(rangeAssign(['m'], [2, 0, 1])).toEqual(new Map([['m', [0, 1, 2]]]));
    expect(rangeAssign(['x', 'y'], [0])).toEqual(
      new Map([
        ['x', [0]],
        ['y', []],
      ]),
    );
  });
});
