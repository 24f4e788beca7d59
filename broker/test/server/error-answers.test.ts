// The error answers (server/error-answers): for every API the broker serves, at every version it
// advertises, a request with one of each key (topic, partition, group, transactional id, ...)
// gets an answer that encodes, carries the error in every error field and echoes the keys. The
// request is built from Kafka's JSON spec, so every field of every version is filled.
import * as path from 'node:path';
import { FieldSpec, loadSpec, MessageSpec, parseRange, REPO_SPEC_DIR } from '../../scripts/protocol-spec';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import { API_SPEC_BY_KEY } from '../../src/protocol/messages/registry';
import { Reader } from '../../src/protocol/reader';
import { Writer } from '../../src/protocol/writer';
import { StorageError } from '../../src/storage/storage';
import type { BrokerContext, RequestContext } from '../../src/server/context';
import { API_KEYS_WITH_ERROR_ANSWERS, errorAnswer } from '../../src/server/error-answers';
import { createHandlers } from '../../src/server/handlers';

const PARTITION = 7;
const UUID = 'AQIDBAUGBwgJCgsMDQ4PEA';
const camel = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const inVersions = (range: string | undefined, v: number) => {
  const r = parseRange(range);
  return v >= r.min && v <= r.max;
};

/** Int32 fields (and int32 arrays) that hold partition indexes. */
const PARTITION_FIELDS = new Set([
  'Index',
  'Partition',
  'PartitionIndex',
  'PartitionId',
  'Partitions',
  'PartitionIndexes',
]);

/** A request with one element in every array, strings named after their struct and field ("FetchTopic.Topic"). */
function sampleRequest(spec: MessageSpec, v: number): Record<string, unknown> {
  const common = new Map((spec.commonStructs ?? []).map((c) => [c.name, c.fields]));
  const value = (f: FieldSpec, owner: string): unknown => {
    const array = f.type.startsWith('[]');
    const t = array ? f.type.slice(2) : f.type;
    const fields = f.fields ?? common.get(t);
    const one = (): unknown => {
      if (fields) return struct(fields, t);
      if (t === 'string') return `${owner}.${f.name}`;
      if (t === 'int64') return 0n;
      if (t === 'uuid') return UUID;
      if (t === 'bytes' || t === 'records') return Buffer.alloc(0);
      if (t === 'bool') return false;
      if (f.name === 'Acks') return -1;
      if (f.name === 'ResourceType') return 2; // TOPIC
      return t === 'int32' && PARTITION_FIELDS.has(f.name) ? PARTITION : 0;
    };
    return array ? [one()] : one();
  };
  const struct = (fields: FieldSpec[], name: string) => {
    const o: Record<string, unknown> = {};
    for (const f of fields) if (f.tag === undefined && inVersions(f.versions, v)) o[camel(f.name)] = value(f, name);
    return o;
  };
  return struct(spec.fields, spec.name);
}

/** Every field of a decoded message that is on the wire in version v (tagged ones left out), with its path. */
function wireFields(spec: MessageSpec, v: number, body: unknown): { path: string; name: string; value: unknown }[] {
  const common = new Map((spec.commonStructs ?? []).map((c) => [c.name, c.fields]));
  const out: { path: string; name: string; value: unknown }[] = [];
  const walk = (fields: FieldSpec[], o: Record<string, unknown>, at: string) => {
    for (const f of fields) {
      if (f.tag !== undefined || !inVersions(f.versions, v)) continue;
      const x = o[camel(f.name)];
      const where = `${at}.${f.name}`;
      const sub = f.fields ?? common.get(f.type.replace(/^\[\]/, ''));
      if (sub && Array.isArray(x)) x.forEach((e, i) => walk(sub, e as Record<string, unknown>, `${where}[${i}]`));
      else if (sub && x) walk(sub, x as Record<string, unknown>, where);
      else if (Array.isArray(x)) for (const e of x) out.push({ path: where, name: f.name, value: e });
      else out.push({ path: where, name: f.name, value: x });
    }
  };
  walk(spec.fields, body as Record<string, unknown>, spec.name);
  return out;
}

/** Request strings each answer must echo (by version), and whether it echoes partitions. */
const ECHOED: Partial<Record<number, { keys: (v: number) => string[]; partitions?: (v: number) => boolean }>> = {
  [ApiKey.Produce]: { keys: () => ['TopicProduceData.Name'], partitions: () => true },
  [ApiKey.Fetch]: { keys: (v) => (v < 13 ? ['FetchTopic.Topic'] : [UUID]), partitions: () => true },
  [ApiKey.ListOffsets]: { keys: () => ['ListOffsetsTopic.Name'], partitions: () => true },
  [ApiKey.Metadata]: { keys: (v) => (v >= 10 ? [UUID, 'MetadataRequestTopic.Name'] : ['MetadataRequestTopic.Name']) },
  [ApiKey.DeleteRecords]: { keys: () => ['DeleteRecordsTopic.Name'], partitions: () => true },
  [ApiKey.CreateTopics]: { keys: () => ['CreatableTopic.Name'] },
  [ApiKey.DeleteTopics]: {
    keys: (v) => (v < 6 ? ['DeleteTopicsRequest.TopicNames'] : ['DeleteTopicState.Name', UUID]),
  },
  [ApiKey.DescribeConfigs]: { keys: () => ['DescribeConfigsResource.ResourceName'] },
  [ApiKey.AlterConfigs]: { keys: () => ['AlterConfigsResource.ResourceName'] },
  [ApiKey.IncrementalAlterConfigs]: { keys: () => ['AlterConfigsResource.ResourceName'] },
  [ApiKey.CreatePartitions]: { keys: () => ['CreatePartitionsTopic.Name'] },
  [ApiKey.ElectLeaders]: { keys: () => ['TopicPartitions.Topic'], partitions: () => true },
  [ApiKey.AlterClientQuotas]: { keys: () => ['EntityData.EntityType', 'EntityData.EntityName'] },
  [ApiKey.DescribeUserScramCredentials]: { keys: () => ['UserName.Name'] },
  [ApiKey.AlterUserScramCredentials]: { keys: () => ['ScramCredentialDeletion.Name', 'ScramCredentialUpsertion.Name'] },
  [ApiKey.FindCoordinator]: { keys: (v) => (v >= 4 ? ['FindCoordinatorRequest.CoordinatorKeys'] : []) },
  [ApiKey.OffsetCommit]: { keys: () => ['OffsetCommitRequestTopic.Name'], partitions: () => true },
  [ApiKey.OffsetFetch]: {
    keys: (v) =>
      v < 8 ? ['OffsetFetchRequestTopic.Name'] : ['OffsetFetchRequestGroup.GroupId', 'OffsetFetchRequestTopics.Name'],
    partitions: () => true,
  },
  [ApiKey.DescribeGroups]: { keys: () => ['DescribeGroupsRequest.Groups'] },
  [ApiKey.DeleteGroups]: { keys: () => ['DeleteGroupsRequest.GroupsNames'] },
  [ApiKey.OffsetDelete]: { keys: () => ['OffsetDeleteRequestTopic.Name'], partitions: () => true },
  [ApiKey.LeaveGroup]: { keys: (v) => (v >= 3 ? ['MemberIdentity.MemberId'] : []) },
  [ApiKey.AddPartitionsToTxn]: {
    keys: (v) => (v < 4 ? ['AddPartitionsToTxnTopic.Name'] : ['AddPartitionsToTxnTransaction.TransactionalId']),
    partitions: () => true,
  },
  [ApiKey.TxnOffsetCommit]: { keys: () => ['TxnOffsetCommitRequestTopic.Name'], partitions: () => true },
  [ApiKey.DescribeTransactions]: { keys: () => ['DescribeTransactionsRequest.TransactionalIds'] },
};

/** Answers without any error field in these versions (Kafka's too): DescribeLogDirs v0-2 has only per-dir codes. */
const NO_ERROR_FIELD = (apiKey: number, v: number) => apiKey === ApiKey.DescribeLogDirs && v < 3;

/** APIs whose failure closes the connection instead (no answer due). */
const CLOSES = new Set<number>([ApiKey.SaslAuthenticate]);

const broker = {
  identity: { nodeId: 1, clusterId: 'cluster-1' },
  advertised: { host: '127.0.0.1', port: 9092 },
  listeners: [],
} as unknown as BrokerContext;

const handlers = createHandlers();

const specOf = (apiKey: number, kind: 'Request' | 'Response') =>
  loadSpec(path.join(REPO_SPEC_DIR, `${API_SPEC_BY_KEY.get(apiKey)!.name}${kind}.json`));
const responseSpec = (apiKey: number) => specOf(apiKey, 'Response');

function roundTrip(apiKey: number, v: number, err: unknown) {
  const api = API_SPEC_BY_KEY.get(apiKey)!;
  const sample = sampleRequest(specOf(apiKey, 'Request'), v);
  const w = new Writer(256);
  api.encodeRequest(w, v, sample);
  const request = api.decodeRequest(new Reader(w.toBuffer()), v);
  const ctx = { broker, apiKey, apiVersion: v, correlationId: 1, clientId: null } as unknown as RequestContext;
  const { body, code } = errorAnswer(ctx, request, err);
  if (body === null) return { body, code, decoded: null };
  const out = new Writer(256);
  api.encodeResponse(out, v, body);
  return { body, code, decoded: api.decodeResponse(new Reader(out.toBuffer()), v) as unknown };
}

describe('error answers', () => {
  it('every API the broker serves has one', () => {
    expect([...handlers.keys()].filter((k) => !API_KEYS_WITH_ERROR_ANSWERS.has(k))).toEqual([]);
  });

  const cases = [...handlers.values()].flatMap((h) => {
    const out: [string, number, number][] = [];
    for (let v = h.minVersion; v <= h.maxVersion; v++) out.push([API_SPEC_BY_KEY.get(h.apiKey)!.name, h.apiKey, v]);
    return out;
  });

  it.each(cases)(
    '%s (key %i) v%i: encodes with the error in every error field and the keys echoed',
    (_n, apiKey, v) => {
      for (const err of [new StorageError('connection refused', { code: '08006' }), new Error('a bug')]) {
        const { decoded, code } = roundTrip(apiKey, v, err);
        if (CLOSES.has(apiKey)) {
          expect(decoded).toBeNull();
          continue;
        }
        expect(code).not.toBe(ErrorCode.NONE);
        if (!(err instanceof StorageError)) expect(code).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
        const wire = wireFields(responseSpec(apiKey), v, decoded);
        const fields = wire.filter((f) => /ErrorCode$/.test(f.name));
        if (!NO_ERROR_FIELD(apiKey, v)) expect(fields.length).toBeGreaterThan(0);
        for (const { path: where, value } of fields) expect({ where, value }).toEqual({ where, value: code });
        const echoed = ECHOED[apiKey];
        const seen = new Set(wire.map((f) => f.value));
        for (const key of echoed?.keys(v) ?? []) expect({ key, seen: seen.has(key) }).toEqual({ key, seen: true });
        if (echoed?.partitions?.(v)) expect(seen.has(PARTITION)).toBe(true);
      }
    },
  );

  it('a StorageError is retriable: storage, coordinator and metadata codes; old Produce/Fetch versions NOT_LEADER', () => {
    const err = new StorageError('down');
    expect(roundTrip(ApiKey.Produce, 9, err).code).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    expect(roundTrip(ApiKey.Produce, 3, err).code).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(roundTrip(ApiKey.Fetch, 6, err).code).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    expect(roundTrip(ApiKey.Fetch, 5, err).code).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(roundTrip(ApiKey.FindCoordinator, 4, err).code).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(roundTrip(ApiKey.JoinGroup, 5, err).code).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(roundTrip(ApiKey.InitProducerId, 4, err).code).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(roundTrip(ApiKey.Metadata, 9, err).code).toBe(ErrorCode.LEADER_NOT_AVAILABLE);
  });

  it('Metadata keeps the live brokers; acks=0 Produce has no answer', () => {
    const { decoded } = roundTrip(ApiKey.Metadata, 12, new StorageError('down'));
    expect((decoded as { brokers: { nodeId: number }[] }).brokers.map((b) => b.nodeId)).toEqual([1]);
    const ctx = { broker, apiKey: ApiKey.Produce, apiVersion: 9 } as unknown as RequestContext;
    expect(errorAnswer(ctx, { acks: 0, topicData: [] }, new StorageError('down')).body).toBeNull();
  });
});
