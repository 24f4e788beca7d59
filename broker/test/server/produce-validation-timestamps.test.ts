// Produce validation's timestamp checks, as Kafka's LogValidator.validateTimestamp does them
// (message.timestamp.type, KIP-937's before/after limits); the rest is produce-validation.test.ts.
import { CompressionType } from '../../src/protocol/compression';
import { ErrorCode } from '../../src/protocol/error-codes';
import { TimestampType, encodeRecordBatch } from '../../src/protocol/record-batch';
import { producePolicy } from '../../src/server/produce-policy';
import { validateProduceRecords } from '../../src/server/produce-validation';
import { accepted, batchOf, codecs, failure, LONG_MAX, NOW, policy } from './produce-validation-kit';

describe('timestamps (message.timestamp.type, KIP-937 limits)', () => {
  const hour = 3_600_000;
  const mixed = (compression: CompressionType = CompressionType.None) =>
    encodeRecordBatch({
      compression,
      baseTimestamp: BigInt(NOW),
      records: [
        { value: Buffer.from('ok'), timestamp: BigInt(NOW) },
        { value: Buffer.from('too old'), timestamp: BigInt(NOW - 2 * hour) },
        { value: Buffer.from('ok'), timestamp: BigInt(NOW - 10) },
        { value: Buffer.from('too new'), timestamp: BigInt(NOW + 2 * hour) },
      ],
    });

  it.each(codecs)(
    '%s: records outside [now - before, now + after] get INVALID_TIMESTAMP with one record error each',
    (_name, type) => {
      const f = failure(
        validateProduceRecords(
          mixed(type),
          policy({ timestampBeforeMaxMs: BigInt(hour), timestampAfterMaxMs: BigInt(hour) }),
        ),
      );
      expect(f.errorCode).toBe(ErrorCode.INVALID_TIMESTAMP);
      expect(f.message).toBe('One or more records have been rejected due to invalid timestamp');
      const window = `[${NOW - hour}, ${NOW + hour}]`;
      expect(f.recordErrors).toEqual([
        {
          batchIndex: 1,
          batchIndexErrorMessage: `Timestamp ${NOW - 2 * hour} of message with offset 1 is out of range. The timestamp should be within ${window}`,
        },
        {
          batchIndex: 3,
          batchIndexErrorMessage: `Timestamp ${NOW + 2 * hour} of message with offset 3 is out of range. The timestamp should be within ${window}`,
        },
      ]);
    },
  );

  it("only the limit that is set applies; the window prints as Kafka's long arithmetic does", () => {
    const f = failure(validateProduceRecords(mixed(), policy({ timestampBeforeMaxMs: BigInt(hour) })));
    expect(f.recordErrors.map((e) => e.batchIndex)).toEqual([1]);
    expect(f.recordErrors[0]!.batchIndexErrorMessage).toContain(
      `[${NOW - hour}, ${BigInt.asIntN(64, BigInt(NOW) + LONG_MAX)}]`,
    );
  });

  it('LogAppendTime topics do not check producer timestamps', () => {
    accepted(
      validateProduceRecords(
        mixed(),
        policy({ logAppendTime: true, timestampBeforeMaxMs: 1n, timestampAfterMaxMs: 1n }),
      ),
    );
  });

  it.each(codecs)('%s: a compacted topic refuses records without a key (LogValidator.validateKey)', (_name, type) => {
    const keyless = encodeRecordBatch({
      compression: type,
      records: [0, 1, 2, 3].map((i) => ({
        key: i % 2 === 0 ? Buffer.from(`k${i}`) : null,
        value: Buffer.from(`v${i}`),
        timestamp: BigInt(NOW),
      })),
    });
    const f = failure(validateProduceRecords(keyless, policy({ compacted: true }), 'compacted-3'));
    const message = 'Compacted topic cannot accept message without key in topic partition compacted-3';
    expect(f.errorCode).toBe(ErrorCode.INVALID_RECORD);
    expect(f.recordErrors).toEqual([
      { batchIndex: 1, batchIndexErrorMessage: message },
      { batchIndex: 3, batchIndexErrorMessage: message },
    ]);
    expect(f.message).toBe(
      `One or more records have been rejected due to 2 record errors in total, and only showing the first three errors at most: [RecordError(batchIndex=1, message='${message}'), RecordError(batchIndex=3, message='${message}')]`,
    );
    expect(f.withLogStartOffset).toBe(true);
    // Keyed records pass; a topic without compact takes keyless ones.
    accepted(validateProduceRecords(batchOf(3, { compression: type }), policy({ compacted: true }), 'compacted-3'));
    accepted(validateProduceRecords(keyless, policy()));
  });

  it('producePolicy reads compaction from the topic, else the broker default', () => {
    expect(producePolicy({ 'cleanup.policy': 'compact,delete' }, 9, NOW).compacted).toBe(true);
    expect(producePolicy({}, 9, NOW, { 'cleanup.policy': 'compact' }).compacted).toBe(true);
    expect(producePolicy({}, 9, NOW).compacted).toBe(false);
  });

  it('a producer may not flag its batch LogAppendTime on a LogAppendTime topic', () => {
    const batch = batchOf(2, { timestampType: TimestampType.LogAppendTime, maxTimestamp: BigInt(NOW) });
    const f = failure(validateProduceRecords(batch, policy({ logAppendTime: true })));
    expect(f.errorCode).toBe(ErrorCode.INVALID_TIMESTAMP);
    expect(f.recordErrors).toHaveLength(2);
    expect(f.recordErrors[1]!.batchIndexErrorMessage).toMatch(
      /^Invalid timestamp type in message DefaultRecord\(offset=1, timestamp=1700000000000, key=2 bytes, value=\d+ bytes\)\. Producer should not set timestamp type to LogAppendTime\.$/,
    );
  });

  it('on a CreateTime topic a LogAppendTime-flagged batch counts as its maxTimestamp (Kafka checks that one)', () => {
    const batch = batchOf(2, { timestampType: TimestampType.LogAppendTime, maxTimestamp: BigInt(NOW + 5) });
    const [b] = accepted(validateProduceRecords(batch, policy()));
    expect(b!.header.maxTimestamp).toBe(BigInt(NOW + 5));
    const noTime = batchOf(2, { timestampType: TimestampType.LogAppendTime, maxTimestamp: -1n });
    expect(failure(validateProduceRecords(noTime, policy())).errorCode).toBe(ErrorCode.INVALID_TIMESTAMP);
  });

  it('producePolicy reads the limits: Kafka 4 defaults, set limits, else message.timestamp.difference.max.ms', () => {
    // KIP-1030: after.max.ms is 1 hour by default since Kafka 4.0; before.max.ms has no limit.
    expect(producePolicy({}, 9, NOW)).toMatchObject({
      timestampBeforeMaxMs: LONG_MAX,
      timestampAfterMaxMs: 3_600_000n,
      logAppendTime: false,
      maxMessageBytes: 1048588,
    });
    const p = producePolicy(
      { 'message.timestamp.difference.max.ms': '5000', 'message.timestamp.after.max.ms': '60000' },
      9,
      NOW,
    );
    expect(p).toMatchObject({ timestampBeforeMaxMs: 5000n, timestampAfterMaxMs: 60000n });
    expect(producePolicy({ 'message.timestamp.difference.max.ms': '5000' }, 9, NOW)).toMatchObject({
      timestampBeforeMaxMs: 5000n,
      timestampAfterMaxMs: 5000n,
    });
    const byDefault = failure(validateProduceRecords(mixed(), producePolicy({}, 9, NOW)));
    expect(byDefault.recordErrors.map((e) => e.batchIndex)).toEqual([3]); // 2 hours ahead; 2 hours back is fine
    const f = failure(validateProduceRecords(mixed(), p));
    expect(f.recordErrors.map((e) => e.batchIndex)).toEqual([1, 3]);
    expect(producePolicy({ 'message.timestamp.type': 'LogAppendTime' }, 9, NOW).logAppendTime).toBe(true);
  });

  it('producePolicy follows the topic configs and broker defaults of each call, with its own version and time', () => {
    // Kafka's defaults (parsed once), then the same call with a dynamic broker default, then a topic override.
    expect(producePolicy({}, 9, NOW)).toMatchObject({ maxMessageBytes: 1048588, produceVersion: 9, nowMs: NOW });
    expect(producePolicy({}, 11, NOW + 5)).toMatchObject({
      maxMessageBytes: 1048588,
      produceVersion: 11,
      nowMs: NOW + 5,
    });
    expect(producePolicy({}, 9, NOW, { 'max.message.bytes': '200' }).maxMessageBytes).toBe(200);
    expect(producePolicy({}, 9, NOW, { 'message.timestamp.type': 'LogAppendTime' }).logAppendTime).toBe(true);
    expect(producePolicy({ 'max.message.bytes': '500' }, 9, NOW).maxMessageBytes).toBe(500);
    expect(producePolicy({ 'max.message.bytes': '500' }, 9, NOW, { 'max.message.bytes': '200' }).maxMessageBytes).toBe(
      500,
    );
    expect(producePolicy({}, 9, NOW)).toMatchObject({ maxMessageBytes: 1048588, logAppendTime: false });
  });
});
