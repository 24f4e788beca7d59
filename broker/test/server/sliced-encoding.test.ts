// Large responses are encoded a slice of their main array at a time, the event loop turning
// between slices, and come out byte for byte as encoding them at once does (issue 29).
import { ApiKey } from '../../src/protocol/api-keys';
import { responseHeaderVersion } from '../../src/protocol/headers';
import { API_SPEC_BY_KEY } from '../../src/protocol/messages/registry';
import { Writer } from '../../src/protocol/writer';
import { ELEMENTS_PER_SLICE, SLICED_MIN_ELEMENTS, encodeInSlices, slicedField } from '../../src/server/sliced-encoding';
import { SliceClock } from '../../src/server/yield-slices';
import { loopTurnsDuring } from '../support/loop-turns';

/** The frame the connection writes: size, correlation id, header tagged fields, body. */
const frameEncoder = (apiKey: number, apiVersion: number) => (body: unknown) => {
  const w = new Writer(256);
  w.int32(0);
  w.int32(42);
  if (responseHeaderVersion(apiKey, apiVersion) >= 1) w.uvarint(0);
  API_SPEC_BY_KEY.get(apiKey)!.encodeResponse(w, apiVersion, body);
  const chunks = w.toChunks();
  chunks[0]!.writeInt32BE(w.length - 4, 0);
  return Buffer.concat(chunks);
};

const createTopicsAnswer = (n: number) => ({
  throttleTimeMs: 7,
  topics: Array.from({ length: n }, (_, i) => ({
    name: `topic-${i}`,
    topicId: 'AAAAAAAAAAAAAAAAAAAAAQ',
    errorCode: 0,
    errorMessage: null,
    numPartitions: 3,
    replicationFactor: 1,
    configs: [{ name: 'cleanup.policy', value: 'delete', readOnly: false, configSource: 5, isSensitive: false }],
  })),
});

const metadataAnswer = (n: number) => ({
  throttleTimeMs: 0,
  brokers: [{ nodeId: 1, host: '127.0.0.1', port: 9092, rack: null }],
  clusterId: 'minnow',
  controllerId: 1,
  topics: Array.from({ length: n }, (_, i) => ({
    errorCode: 0,
    name: `topic-${i}`,
    topicId: 'AAAAAAAAAAAAAAAAAAAAAg',
    isInternal: false,
    partitions: [
      {
        errorCode: 0,
        partitionIndex: 0,
        leaderId: 1,
        leaderEpoch: 0,
        replicaNodes: [1],
        isrNodes: [1],
        offlineReplicas: [],
      },
    ],
    topicAuthorizedOperations: -2147483648,
  })),
  clusterAuthorizedOperations: -2147483648,
});

describe('encodeInSlices', () => {
  it.each([
    ['CreateTopics v2 (int32 array length)', ApiKey.CreateTopics, 2, createTopicsAnswer(2000)],
    ['CreateTopics v7 (compact array length, tagged fields)', ApiKey.CreateTopics, 7, createTopicsAnswer(2000)],
    ['Metadata v1 (the array between other fields)', ApiKey.Metadata, 1, metadataAnswer(1000)],
    ['Metadata v12 (flexible, topics then a field after)', ApiKey.Metadata, 12, metadataAnswer(1000)],
  ])('%s: the same bytes as encoding at once, the loop turning between slices', async (_, apiKey, version, body) => {
    const encode = frameEncoder(apiKey, version);
    const field = slicedField(apiKey, body)!;
    expect(field).toBe('topics');
    const { result: chunks, turns } = await loopTurnsDuring(
      () => encodeInSlices((b) => [encode(b)], body, field, new SliceClock(0)), // yield every slice
    );
    expect(Buffer.concat(chunks).equals(encode(body))).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(body.topics.length / ELEMENTS_PER_SLICE) - 1);
  });

  it('leaves short arrays and other APIs to the one-piece encoder', () => {
    expect(slicedField(ApiKey.CreateTopics, createTopicsAnswer(SLICED_MIN_ELEMENTS - 1))).toBeUndefined();
    expect(slicedField(ApiKey.Fetch, { topics: new Array(5000).fill({}) })).toBeUndefined();
  });
});
