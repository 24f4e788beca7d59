// Topic config values checked with Kafka's ConfigDef rules and texts (issue 10: minnow refused its
// own default of message.timestamp.difference.max.ms and called valid configs "unknown").
import { javaDoubleToString, parseType, ConfigType } from '../../src/storage/config-def';
import {
  isCompacted,
  TOPIC_CONFIG_NAMES,
  TOPIC_CONFIGS,
  topicConfig,
  validateTopicConfigs,
} from '../../src/storage/topic-config';

const check = (configs: Record<string, string>) => validateTopicConfigs(configs);
const error = (configs: Record<string, string>) => {
  const r = check(configs);
  return r.ok ? null : r.message;
};

describe('topic configs', () => {
  it('knows every Kafka 3.9 topic config (LogConfig), with a type, a default and documentation', () => {
    expect(TOPIC_CONFIG_NAMES).toEqual([
      'cleanup.policy',
      'compression.gzip.level',
      'compression.lz4.level',
      'compression.type',
      'compression.zstd.level',
      'delete.retention.ms',
      'file.delete.delay.ms',
      'flush.messages',
      'flush.ms',
      'follower.replication.throttled.replicas',
      'index.interval.bytes',
      'leader.replication.throttled.replicas',
      'local.retention.bytes',
      'local.retention.ms',
      'max.compaction.lag.ms',
      'max.message.bytes',
      'message.downconversion.enable',
      'message.format.version',
      'message.timestamp.after.max.ms',
      'message.timestamp.before.max.ms',
      'message.timestamp.difference.max.ms',
      'message.timestamp.type',
      'min.cleanable.dirty.ratio',
      'min.compaction.lag.ms',
      'min.insync.replicas',
      'preallocate',
      'remote.log.copy.disable',
      'remote.log.delete.on.disable',
      'remote.storage.enable',
      'retention.bytes',
      'retention.ms',
      'segment.bytes',
      'segment.index.bytes',
      'segment.jitter.ms',
      'segment.ms',
      'unclean.leader.election.enable',
    ]);
    for (const def of Object.values(TOPIC_CONFIGS)) expect(def.doc.length).toBeGreaterThan(20);
  });

  it('accepts every default back (what DescribeConfigs reports must round-trip)', () => {
    const defaults = Object.fromEntries(Object.entries(TOPIC_CONFIGS).map(([n, d]) => [n, d.default]));
    expect(check(defaults)).toEqual({ ok: true, configs: defaults });
  });

  it('keeps Long.MAX_VALUE exact and refuses one more, as Long.parseLong does', () => {
    expect(check({ 'message.timestamp.difference.max.ms': '9223372036854775807' })).toEqual({
      ok: true,
      configs: { 'message.timestamp.difference.max.ms': '9223372036854775807' },
    });
    expect(error({ 'flush.ms': '9223372036854775808' })).toBe(
      'Invalid value 9223372036854775808 for configuration flush.ms: Not a number of type LONG',
    );
    expect(error({ 'segment.bytes': '2147483648' })).toBe(
      'Invalid value 2147483648 for configuration segment.bytes: Not a number of type INT',
    );
  });

  it('writes values back as Kafka does: trimmed, sign and leading zeros dropped, booleans lower-case, lists joined', () => {
    expect(
      check({
        'retention.ms': ' +0100 ',
        preallocate: 'TRUE',
        'cleanup.policy': ' delete ',
        'min.cleanable.dirty.ratio': '1',
        'message.timestamp.type': ' LogAppendTime',
      }),
    ).toEqual({
      ok: true,
      configs: {
        'retention.ms': '100',
        preallocate: 'true',
        'cleanup.policy': 'delete',
        'min.cleanable.dirty.ratio': '1.0',
        'message.timestamp.type': 'LogAppendTime',
      },
    });
    expect(check({ 'leader.replication.throttled.replicas': '0:1 , 1:1' })).toEqual({
      ok: true,
      configs: { 'leader.replication.throttled.replicas': '0:1,1:1' },
    });
  });

  it('gives Kafka texts for unknown names, bad numbers, ranges and enums', () => {
    expect(error({ 'no.such.config': '1' })).toBe('Unknown topic config name: no.such.config');
    expect(error({ 'retention.ms': 'abc' })).toBe(
      'Invalid value abc for configuration retention.ms: Not a number of type LONG',
    );
    expect(error({ 'retention.ms': '-2' })).toBe(
      'Invalid value -2 for configuration retention.ms: Value must be at least -1',
    );
    expect(error({ 'min.cleanable.dirty.ratio': '1.5' })).toBe(
      'Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1',
    );
    expect(error({ 'message.timestamp.type': 'Now' })).toBe(
      'Invalid value Now for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime',
    );
    expect(error({ preallocate: 'yes' })).toBe(
      'Invalid value yes for configuration preallocate: Expected value to be either true or false',
    );
    expect(error({ 'compression.gzip.level': '0' })).toBe(
      'Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1',
    );
    expect(error({ 'follower.replication.throttled.replicas': 'x' })).toMatch(
      /^Invalid value \[x\] for configuration follower.replication.throttled.replicas: .* must be the literal '\*'/,
    );
    expect(error({ 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' })).toBe(
      'conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)',
    );
    expect(error({ 'remote.storage.enable': 'true' })).toMatch(
      /^Tiered Storage functionality is disabled in the broker/,
    );
  });

  it('takes message.format.version as MetadataVersion.fromVersionString does', () => {
    for (const v of ['3.0-IV1', '2.8', '2.8.1', '0.10.0', '0.10.0-IV1', '0.10.0.1', '3.9'])
      expect(error({ 'message.format.version': v })).toBeNull();
    expect(error({ 'message.format.version': '9.9' })).toBe(
      'Invalid value 9.9 for configuration message.format.version: Version 9.9 is not a valid version',
    );
  });

  it('accepts compact, delete and both (issue 17), and refuses an empty policy', () => {
    for (const policy of ['compact', 'delete', 'delete,compact', 'compact,delete']) {
      expect(error({ 'cleanup.policy': policy })).toBeNull();
    }
    expect(error({ 'cleanup.policy': '' })).toMatch(/minnow needs a policy/);
    expect(isCompacted({ 'cleanup.policy': 'delete,compact' })).toBe(true);
    expect(isCompacted({})).toBe(false);
    expect(isCompacted({}, { 'cleanup.policy': 'compact' })).toBe(true);
    expect(error({ 'cleanup.policy': 'remove' })).toBe(
      'Invalid value remove for configuration cleanup.policy: String must be one of: compact, delete',
    );
  });

  it("reads the override, else the broker-level default, else Kafka's default", () => {
    expect(topicConfig({}, 'message.timestamp.before.max.ms')).toBe('9223372036854775807');
    expect(topicConfig({}, 'message.timestamp.after.max.ms')).toBe('3600000'); // Kafka 4.0, KIP-1030
    expect(topicConfig({}, 'max.message.bytes', { 'max.message.bytes': '100' })).toBe('100');
    expect(topicConfig({ 'max.message.bytes': '5' }, 'max.message.bytes', { 'max.message.bytes': '100' })).toBe('5');
  });
});

describe('ConfigDef parsing', () => {
  it('prints doubles as Java does', () => {
    expect([0.5, 1, 1e7, 1e-4, 123.25, 0].map(javaDoubleToString)).toEqual([
      '0.5',
      '1.0',
      '1.0E7',
      '1.0E-4',
      '123.25',
      '0.0',
    ]);
    expect(parseType('r', '5e-1', ConfigType.DOUBLE)).toEqual({ ok: true, value: 0.5, text: '0.5' });
    expect(parseType('r', '.5d', ConfigType.DOUBLE)).toEqual({ ok: true, value: 0.5, text: '0.5' });
  });
  it('splits lists on commas with spaces, and an empty string is an empty list', () => {
    expect(parseType('l', '', ConfigType.LIST)).toEqual({ ok: true, value: [], text: '' });
    expect(parseType('l', 'a ,b,', ConfigType.LIST)).toEqual({ ok: true, value: ['a', 'b', ''], text: 'a,b,' });
  });
});
