// The comparison behind `npm run compat`, without Kafka: what is normalised away, what counts as
// a difference, and how the allow-list matches.
import { allowedBy, compareOutcomes, describeValue, diff, normalise } from '../../compat/compare';
import { compareSteps, formatReport } from '../../compat/run';
import { batch } from '../../compat/scenario';

describe('normalise', () => {
  it('replaces volatile ids, hosts and times but keeps their sentinels', () => {
    const n = normalise({
      throttleTimeMs: 3,
      clusterId: 'abc',
      brokers: [{ nodeId: 7, host: '127.0.0.1', port: 40123, rack: null }],
      topics: [
        {
          name: 't',
          topicId: 'XYZ',
          partitions: [{ leaderId: -1, replicaNodes: [1], logAppendTimeMs: -1n, timestamp: 1700000000000n }],
        },
      ],
      memberId: '',
    }) as any;
    expect(n.throttleTimeMs).toBe('<volatile>');
    expect(n.clusterId).toBe('<volatile>');
    expect(n.brokers[0]).toEqual({ nodeId: '<volatile>', host: '<volatile>', port: '<volatile>', rack: null });
    expect(n.topics[0].name).toBe('t');
    expect(n.topics[0].topicId).toBe('<volatile>');
    expect(n.topics[0].partitions[0]).toEqual({
      leaderId: -1,
      replicaNodes: ['<volatile>'],
      logAppendTimeMs: -1n,
      timestamp: '<volatile>',
    });
    expect(n.memberId).toBe('');
  });

  it('keeps only whether an error message was sent', () => {
    expect(normalise({ errorMessage: 'Topic already exists' })).toEqual({ errorMessage: '<text>' });
    expect(normalise({ errorMessage: null })).toEqual({ errorMessage: null });
  });

  it('summarises record sets as batch shapes and keeps null apart from empty', () => {
    const records = Buffer.concat([batch(['a', 'b']), batch(['c'])]);
    expect(normalise({ records })).toEqual({
      records: {
        recordBatches: [
          { baseOffset: 0, lastOffsetDelta: 1, recordsCount: 2, magic: 2 },
          { baseOffset: 0, lastOffsetDelta: 0, recordsCount: 1, magic: 2 },
        ],
        trailingBytes: 0,
      },
    });
    expect(normalise({ records: null })).toEqual({ records: null });
    expect(normalise({ records: Buffer.alloc(0) })).toEqual({ records: { recordBatches: [] } });
  });
});

describe('diff', () => {
  it('finds a different error code deep in the answer and names it', () => {
    const m = { topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0 }] }] };
    const k = { topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 3 }] }] };
    const d = diff(m, k);
    expect(d).toEqual([
      { path: 'topics[name=t].partitions[partitionIndex=0].errorCode', kind: 'value', minnow: 0, kafka: 3 },
    ]);
    expect(describeValue(d[0]!.path, d[0]!.kafka)).toBe('UNKNOWN_TOPIC_OR_PARTITION(3)');
  });

  it('tells null from empty', () => {
    expect(diff({ configs: null }, { configs: [] })).toEqual([
      { path: 'configs', kind: 'null-vs-empty', minnow: null, kafka: [] },
    ]);
    expect(diff(normalise({ records: null }), normalise({ records: Buffer.alloc(0) }))[0]!.kind).toBe('null-vs-empty');
  });

  it('matches array elements by key, not position, and reports the one-sided ones on one line', () => {
    const m = {
      apiKeys: [
        { apiKey: 3, maxVersion: 12 },
        { apiKey: 0, maxVersion: 11 },
      ],
    };
    const k = {
      apiKeys: [
        { apiKey: 0, maxVersion: 11 },
        { apiKey: 3, maxVersion: 13 },
        { apiKey: 29, maxVersion: 3 },
        { apiKey: 30, maxVersion: 3 },
      ],
    };
    expect(diff(m, k)).toEqual([
      { path: 'apiKeys[apiKey=3].maxVersion', kind: 'value', minnow: 12, kafka: 13 },
      { path: 'apiKeys[apiKey=29]', kind: 'only-in-kafka', minnow: undefined, kafka: { apiKey: 29, maxVersion: 3 } },
      { path: 'apiKeys[apiKey=30]', kind: 'only-in-kafka', minnow: undefined, kafka: { apiKey: 30, maxVersion: 3 } },
    ]);
    const reports = compareSteps(
      'api-versions',
      [{ step: 'v3', apiKey: 18, apiVersion: 3, outcome: { kind: 'response', body: m } }],
      [{ step: 'v3', apiKey: 18, apiVersion: 3, outcome: { kind: 'response', body: k } }],
      [],
    );
    expect(formatReport(reports, false)).toContain('apiKeys[apiKey=…] only-in-kafka: 29, 30');
  });

  it('compares by position when elements repeat a key (a partition named twice)', () => {
    const m = {
      partitions: [
        { partitionIndex: 0, errorCode: 0 },
        { partitionIndex: 0, errorCode: 0 },
      ],
    };
    const k = { partitions: [{ partitionIndex: 0, errorCode: 0 }] };
    expect(diff(m, k)).toEqual([
      { path: 'partitions[1]', kind: 'only-in-minnow', minnow: { partitionIndex: 0, errorCode: 0 }, kafka: undefined },
    ]);
  });

  it('finds nothing in equal answers, bigints included', () => {
    expect(diff(normalise({ a: [1, { b: 2n }], c: null }), normalise({ a: [1, { b: 2n }], c: null }))).toEqual([]);
  });
});

describe('compareOutcomes', () => {
  it('reports a closed connection against an answer', () => {
    const d = compareOutcomes(
      { kind: 'no-response', detail: 'connection to broker closed' },
      { kind: 'response', body: { errorCode: 54 } },
    );
    expect(d).toEqual([
      { path: '(outcome)', kind: 'outcome', minnow: 'no response (connection to broker closed)', kafka: 'a response' },
    ]);
  });

  it('ignores volatile fields when both answered', () => {
    expect(
      compareOutcomes(
        { kind: 'response', body: { throttleTimeMs: 0, errorCode: 0 } },
        { kind: 'response', body: { throttleTimeMs: 5, errorCode: 0 } },
      ),
    ).toEqual([]);
  });
});

describe('allow-list and report', () => {
  const allow = [
    { scenario: 'produce', step: 'null *', path: '(outcome)', reason: 'Kafka never answers' },
    { scenario: '*', path: '*errorMessage', reason: 'free text' },
  ];

  it('matches entries by scenario, step and path globs', () => {
    const d = { path: '(outcome)', kind: 'outcome' as const, minnow: 'a', kafka: 'b' };
    expect(allowedBy(allow, 'produce', 'null record set', d)?.reason).toBe('Kafka never answers');
    expect(allowedBy(allow, 'produce', 'empty record set', d)).toBeUndefined();
    expect(allowedBy(allow, 'fetch', 'x', { ...d, path: 'responses[topic=t].errorMessage' })?.reason).toBe('free text');
  });

  it('marks allowed differences, reports the rest, and flags steps that got out of step', () => {
    const step = (name: string, errorCode: number) => ({
      step: name,
      apiKey: 0,
      apiVersion: 9,
      outcome: { kind: 'response' as const, body: { errorCode, errorMessage: 'x' } },
    });
    const reports = compareSteps(
      'produce',
      [step('a', 0), step('b', 0)],
      [
        step('a', 87),
        { ...step('b', 0), outcome: { kind: 'response' as const, body: { errorCode: 0, errorMessage: null } } },
      ],
      allow,
    );
    expect(reports[0]!.differences).toEqual([
      { path: 'errorCode', kind: 'value', minnow: 0, kafka: 87, allowed: undefined },
    ]);
    expect(reports[1]!.differences).toEqual([
      { path: 'errorMessage', kind: 'value', minnow: '<text>', kafka: null, allowed: 'free text' },
    ]);
    const text = formatReport(reports, false);
    expect(text).toContain('errorCode value: minnow NONE(0) | kafka INVALID_RECORD(87)');
    expect(text).not.toContain('errorMessage');
    expect(compareSteps('s', [step('a', 0)], [], [])[0]!.differences[0]!.kind).toBe('outcome');
  });
});
