import { ErrorCode } from '../../../src/protocol/error-codes';
import type { FetchResponse } from '../../../src/protocol/messages';
import { fetchRecordBytes, responseErrorCodes } from '../../../src/server/metrics/response-errors';

describe('responseErrorCodes', () => {
  it('finds nothing in a response without errors', () => {
    expect(
      responseErrorCodes({
        throttleTimeMs: 0,
        errorCode: 0,
        responses: [{ name: 't', partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 5n }] }],
      }),
    ).toEqual([]);
  });

  it('finds error codes at every depth, each distinct code once', () => {
    const body = {
      errorCode: ErrorCode.NONE,
      responses: [
        {
          name: 'a',
          partitionResponses: [
            { index: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
            { index: 1, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
            { index: 2, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER },
          ],
        },
        { name: 'b', partitionResponses: [{ index: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
      ],
    };
    expect(responseErrorCodes(body)).toEqual([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_LEADER_OR_FOLLOWER]);
  });

  it('reads the top-level code and the *ErrorCode fields of Kafka specs (PartitionErrorCode, TopicConfigErrorCode)', () => {
    expect(responseErrorCodes({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, apiKeys: [] })).toEqual([-1]);
    expect(
      responseErrorCodes({
        results: [{ name: 't', errorCode: 0, topicConfigErrorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED }],
      }),
    ).toEqual([ErrorCode.TOPIC_AUTHORIZATION_FAILED]);
    expect(
      responseErrorCodes({
        resultsByTopicV3AndBelow: [{ resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: 48 }] }],
      }),
    ).toEqual([48]);
  });

  it('skips record sets and scalar arrays, and numbers that are not error codes', () => {
    const records = Buffer.alloc(64, 3); // a Buffer's bytes are not fields
    expect(
      responseErrorCodes({
        throttleTimeMs: 100,
        responses: [{ partitions: [{ partitionIndex: 3, highWatermark: 7n, records, errorCode: 0 }] }],
        brokers: [{ nodeId: 1, port: 9092 }],
        replicaNodes: [1, 2, 3],
      }),
    ).toEqual([]);
  });

  it('is empty for a body that is no object', () => {
    expect(responseErrorCodes(null)).toEqual([]);
    expect(responseErrorCodes(undefined)).toEqual([]);
  });
});

describe('fetchRecordBytes', () => {
  it('adds the record sets of every partition', () => {
    const part = (records: Buffer | null) => ({ partitionIndex: 0, errorCode: 0, records }) as never;
    const body = {
      responses: [
        { topic: 'a', partitions: [part(Buffer.alloc(100)), part(Buffer.alloc(0))] },
        { topic: 'b', partitions: [part(Buffer.alloc(23)), part(null)] },
      ],
    } as unknown as FetchResponse;
    expect(fetchRecordBytes(body)).toBe(123);
  });
});
