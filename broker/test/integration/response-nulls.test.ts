// Guard: no response carries null where Kafka sends an empty record set or array. Every handler in
// the registry is called at every version it advertises, with scenarios that reach its error paths,
// over a real connection; each decoded response is walked with Kafka's JSON spec, and any nullable
// records/bytes/array/struct field that came back null fails the test unless Kafka sends null there
// too (KAFKA_SENDS_NULL). librdkafka drops a whole Fetch response whose record set is null.
import * as path from 'node:path';
import { FieldSpec, loadSpec, MessageSpec, parseRange, REPO_SPEC_DIR } from '../../scripts/protocol-spec';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import * as m from '../../src/protocol/messages';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { ZERO_UUID } from '../../src/protocol/uuid';
import type { RunningBroker } from '../../src/server/broker';
import { createHandlers } from '../../src/server/handlers';
import { startTestBroker } from './helpers';

/** Kafka's message specs: the copy in the repository unless KAFKA_SPEC_DIR names another. */
const SPEC_DIR = process.env.KAFKA_SPEC_DIR ?? REPO_SPEC_DIR;

/**
 * Fields Kafka itself sends as null, by response and field path:
 * - Fetch AbortedTransactions: null for read_uncommitted reads and read errors (KafkaApis
 *   handleFetchRequest: `data.abortedTransactions.orElse(null)`; LocalLog.read fills it only for
 *   read_committed). fetch.test checks the read_committed form separately.
 */
const KAFKA_SENDS_NULL: Record<string, string[]> = {
  FetchResponse: ['Responses.Partitions.AbortedTransactions'],
  // ConsumerGroupHeartbeatRequest.getErrorResponse leaves the assignment at its default, null.
  ConsumerGroupHeartbeatResponse: ['Assignment'],
  // DescribeClientQuotasRequest.getErrorResponse: a refused filter answers entries null.
  DescribeClientQuotasResponse: ['Entries'],
  // KRaftMetadataCache.describeTopicResponse: no cursor once every partition is answered.
  DescribeTopicPartitionsResponse: ['NextCursor'],
};

const camel = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const inVersions = (range: string | undefined, v: number) => {
  const r = parseRange(range);
  return v >= r.min && v <= r.max;
};

/** Paths of nullable records/bytes/array/struct fields that are null in `body` (strings may be null). */
function nullFields(spec: MessageSpec, v: number, fields: FieldSpec[], body: any, prefix: string, out: string[]): void {
  for (const f of fields) {
    if (!inVersions(f.versions, v)) continue;
    const value = body?.[camel(f.name)];
    const p = prefix + f.name;
    const elemType = f.type.startsWith('[]') ? f.type.slice(2) : f.type;
    const sub = f.fields ?? spec.commonStructs?.find((c) => c.name === elemType)?.fields;
    if (value === null && f.type !== 'string') out.push(p);
    if (!sub || value === null || value === undefined) continue;
    for (const e of Array.isArray(value) ? value : [value]) nullFields(spec, v, sub, e, `${p}.`, out);
  }
}

interface Scenario {
  name: string;
  /** The request body for version v (fields a version lacks are ignored by the codec). */
  body: (v: number) => unknown;
}

describe('responses never carry null where Kafka sends empty', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  let topicId = ZERO_UUID;
  let emptyId = ZERO_UUID;
  const OTHER_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

  beforeAll(async () => {
    broker = await startTestBroker('memory://', { config: { groupInitialRebalanceDelayMs: 0 } });
    topicId = (await broker.context.storage.createTopic('t', 1, {})).topicId;
    emptyId = (await broker.context.storage.createTopic('empty', 1, {})).topicId;
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
    const batch = encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: BigInt(Date.now()) }] });
    await conn.send(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: 't', partitionData: [{ index: 0, records: batch }] }],
    });
  });
  afterAll(async () => {
    conn?.close();
    await broker?.stop();
  });

  const fetchBody = (topic: string, id: string, fetchOffset: bigint, isolationLevel = 0) => ({
    ...m.defaultFetchRequest(),
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel,
    topics: [{ topic, topicId: id, partitions: [{ partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 }] }],
  });
  const group = (v: number, name: string) => `nulls-${name}-${v}`;
  const batch = () => encodeRecordBatch({ records: [{ value: Buffer.from('y'), timestamp: BigInt(Date.now()) }] });

  const SCENARIOS: Record<number, Scenario[]> = {
    [ApiKey.Produce]: [
      {
        name: 'ok',
        body: () => ({
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: 't', partitionData: [{ index: 0, records: batch() }] }],
        }),
      },
      {
        name: 'unknown topic',
        body: () => ({
          transactionalId: null,
          acks: -1,
          timeoutMs: 5000,
          topicData: [{ name: 'nope', partitionData: [{ index: 0, records: batch() }] }],
        }),
      },
    ],
    [ApiKey.Fetch]: [
      { name: 'ok', body: (v) => fetchBody('t', v >= 13 ? topicId : ZERO_UUID, 0n) },
      { name: 'read_committed', body: (v) => fetchBody('t', v >= 13 ? topicId : ZERO_UUID, 0n, 1) },
      { name: 'empty partition', body: (v) => fetchBody('empty', v >= 13 ? emptyId : ZERO_UUID, 0n) },
      { name: 'out of range', body: (v) => fetchBody('t', v >= 13 ? topicId : ZERO_UUID, 1000n) },
      { name: 'unknown topic', body: (v) => fetchBody('nope', v >= 13 ? OTHER_ID : ZERO_UUID, 0n) },
    ],
    [ApiKey.ListOffsets]: [
      {
        name: 'ok and unknown',
        body: () => ({
          ...m.defaultListOffsetsRequest(),
          replicaId: -1,
          topics: [
            { name: 't', partitions: [{ partitionIndex: 0, timestamp: -1n }] },
            { name: 'nope', partitions: [{ partitionIndex: 0, timestamp: -2n }] },
          ],
        }),
      },
    ],
    [ApiKey.Metadata]: [
      { name: 'all topics', body: (v) => ({ ...m.defaultMetadataRequest(), topics: v === 0 ? [] : null }) },
      {
        name: 'named',
        body: () => ({
          ...m.defaultMetadataRequest(),
          allowAutoTopicCreation: false,
          topics: [{ name: 't' }, { name: 'nope' }, { name: '__consumer_offsets' }, { name: 'bad name!' }],
        }),
      },
    ],
    [ApiKey.OffsetCommit]: [
      {
        name: 'simple commit',
        body: (v) => ({
          ...m.defaultOffsetCommitRequest(),
          groupId: group(v, 'commit'),
          generationIdOrMemberEpoch: -1,
          memberId: '',
          topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }],
        }),
      },
      {
        name: 'unknown member',
        body: (v) => ({
          ...m.defaultOffsetCommitRequest(),
          groupId: group(v, 'commit'),
          generationIdOrMemberEpoch: 3,
          memberId: 'who',
          topics: [{ name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] }],
        }),
      },
    ],
    [ApiKey.OffsetFetch]: [
      {
        name: 'named and all',
        body: (v) =>
          v >= 8
            ? {
                ...m.defaultOffsetFetchRequest(),
                groups: [
                  { groupId: group(v, 'fetch'), topics: [{ name: 't', partitionIndexes: [0] }] },
                  { groupId: group(v, 'fetch-all'), topics: null },
                ],
              }
            : {
                ...m.defaultOffsetFetchRequest(),
                groupId: group(v, 'fetch'),
                topics: v >= 2 ? null : [{ name: 't', partitionIndexes: [0] }],
              },
      },
    ],
    [ApiKey.FindCoordinator]: [
      {
        name: 'group and transaction',
        body: (v) =>
          v >= 4
            ? { ...m.defaultFindCoordinatorRequest(), keyType: 1, coordinatorKeys: ['a', 'b'] }
            : { ...m.defaultFindCoordinatorRequest(), key: 'g', keyType: v >= 1 ? 1 : 0 },
      },
    ],
    [ApiKey.JoinGroup]: [
      {
        name: 'new member',
        body: (v) => ({
          ...m.defaultJoinGroupRequest(),
          groupId: group(v, 'join'),
          sessionTimeoutMs: 6000,
          rebalanceTimeoutMs: 6000,
          memberId: '',
          protocolType: 'consumer',
          protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
        }),
      },
      {
        name: 'bad session timeout',
        body: (v) => ({
          ...m.defaultJoinGroupRequest(),
          groupId: group(v, 'join-bad'),
          sessionTimeoutMs: 1,
          memberId: '',
          protocolType: 'consumer',
          protocols: [],
        }),
      },
    ],
    [ApiKey.Heartbeat]: [
      {
        name: 'unknown member',
        body: (v) => ({ ...m.defaultHeartbeatRequest(), groupId: group(v, 'hb'), generationId: 1, memberId: 'who' }),
      },
    ],
    [ApiKey.LeaveGroup]: [
      {
        name: 'unknown member',
        body: (v) => ({
          ...m.defaultLeaveGroupRequest(),
          groupId: group(v, 'leave'),
          memberId: 'who',
          members: [{ memberId: 'who', groupInstanceId: null }],
        }),
      },
    ],
    [ApiKey.SyncGroup]: [
      {
        name: 'unknown member',
        body: (v) => ({
          ...m.defaultSyncGroupRequest(),
          groupId: group(v, 'sync'),
          generationId: 1,
          memberId: 'who',
          assignments: [],
        }),
      },
    ],
    [ApiKey.DescribeGroups]: [
      { name: 'unknown group', body: (v) => ({ ...m.defaultDescribeGroupsRequest(), groups: [group(v, 'nobody')] }) },
    ],
    [ApiKey.ListGroups]: [{ name: 'all', body: () => m.defaultListGroupsRequest() }],
    [ApiKey.ApiVersions]: [
      {
        name: 'ok',
        body: () => ({ ...m.defaultApiVersionsRequest(), clientSoftwareName: 'test', clientSoftwareVersion: '1' }),
      },
    ],
    [ApiKey.CreateTopics]: [
      {
        name: 'ok, exists, invalid, internal',
        body: (v) => ({
          ...m.defaultCreateTopicsRequest(),
          timeoutMs: 5000,
          topics: [`nulls-created-${v}`, 't', 'bad name!', '__consumer_offsets'].map((name) => ({
            name,
            numPartitions: 1,
            replicationFactor: 1,
            assignments: [],
            configs: [],
          })),
        }),
      },
    ],
    [ApiKey.DeleteTopics]: [
      {
        name: 'unknown',
        body: () => ({
          ...m.defaultDeleteTopicsRequest(),
          topicNames: ['nope'],
          topics: [{ name: 'nope', topicId: ZERO_UUID }],
          timeoutMs: 5000,
        }),
      },
    ],
    [ApiKey.DeleteRecords]: [
      {
        name: 'ok and unknown',
        body: () => ({
          ...m.defaultDeleteRecordsRequest(),
          timeoutMs: 5000,
          topics: [
            { name: 't', partitions: [{ partitionIndex: 0, offset: 0n }] },
            { name: 'nope', partitions: [{ partitionIndex: 0, offset: 0n }] },
          ],
        }),
      },
    ],
    [ApiKey.InitProducerId]: [
      {
        name: 'idempotent',
        body: () => ({ ...m.defaultInitProducerIdRequest(), transactionalId: null, transactionTimeoutMs: 60000 }),
      },
      {
        name: 'transactional',
        body: () => ({ ...m.defaultInitProducerIdRequest(), transactionalId: 'tx', transactionTimeoutMs: 60000 }),
      },
    ],
    [ApiKey.DescribeConfigs]: [
      {
        name: 'topic, unknown, broker, bad type',
        body: () => ({
          ...m.defaultDescribeConfigsRequest(),
          resources: [
            { resourceType: 2, resourceName: 't', configurationKeys: null },
            { resourceType: 2, resourceName: 'nope', configurationKeys: null },
            { resourceType: 4, resourceName: '', configurationKeys: ['num.partitions'] },
            { resourceType: 99, resourceName: 'x', configurationKeys: null },
          ],
        }),
      },
    ],
    [ApiKey.AlterConfigs]: [
      {
        name: 'unknown topic',
        body: () => ({
          ...m.defaultAlterConfigsRequest(),
          resources: [{ resourceType: 2, resourceName: 'nope', configs: [] }],
          validateOnly: true,
        }),
      },
    ],
    [ApiKey.CreatePartitions]: [
      {
        name: 'unknown and too few',
        body: () => ({
          ...m.defaultCreatePartitionsRequest(),
          timeoutMs: 5000,
          validateOnly: true,
          topics: [
            { name: 'nope', count: 2, assignments: null },
            { name: 't', count: 1, assignments: null },
          ],
        }),
      },
    ],
    [ApiKey.DeleteGroups]: [
      { name: 'unknown', body: (v) => ({ ...m.defaultDeleteGroupsRequest(), groupsNames: [group(v, 'gone')] }) },
    ],
    [ApiKey.IncrementalAlterConfigs]: [
      {
        name: 'unknown topic',
        body: () => ({
          ...m.defaultIncrementalAlterConfigsRequest(),
          resources: [{ resourceType: 2, resourceName: 'nope', configs: [] }],
          validateOnly: true,
        }),
      },
    ],
    [ApiKey.OffsetDelete]: [
      {
        name: 'unknown group',
        body: (v) => ({
          ...m.defaultOffsetDeleteRequest(),
          groupId: group(v, 'odel'),
          topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }],
        }),
      },
    ],
    [ApiKey.DescribeAcls]: [
      {
        name: 'any',
        body: () => ({
          ...m.defaultDescribeAclsRequest(),
          resourceTypeFilter: 1,
          resourceNameFilter: null,
          patternTypeFilter: 1,
          principalFilter: null,
          hostFilter: null,
          operation: 1,
          permissionType: 1,
        }),
      },
    ],
    [ApiKey.CreateAcls]: [
      {
        name: 'one',
        body: () => ({
          creations: [
            {
              resourceType: 2,
              resourceName: 't',
              resourcePatternType: 3,
              principal: 'User:alice',
              host: '*',
              operation: 3,
              permissionType: 3,
            },
          ],
        }),
      },
    ],
    [ApiKey.DeleteAcls]: [
      {
        name: 'one',
        body: () => ({
          filters: [
            {
              resourceTypeFilter: 1,
              resourceNameFilter: null,
              patternTypeFilter: 1,
              principalFilter: null,
              hostFilter: null,
              operation: 1,
              permissionType: 1,
            },
          ],
        }),
      },
    ],
    [ApiKey.DescribeLogDirs]: [
      { name: 'all', body: () => ({ topics: null }) },
      {
        name: 'named',
        body: () => ({
          topics: [
            { topic: 't', partitions: [0, 3] },
            { topic: 'nope', partitions: [0] },
          ],
        }),
      },
    ],
    [ApiKey.ElectLeaders]: [
      {
        name: 'named',
        body: () => ({
          ...m.defaultElectLeadersRequest(),
          electionType: 0,
          topicPartitions: [
            { topic: 't', partitions: [0, 5] },
            { topic: 'nope', partitions: [0] },
          ],
          timeoutMs: 5000,
        }),
      },
      {
        name: 'all',
        body: () => ({ ...m.defaultElectLeadersRequest(), electionType: 1, topicPartitions: null, timeoutMs: 5000 }),
      },
    ],
    [ApiKey.AlterPartitionReassignments]: [
      {
        name: 'same, other, cancel, unknown',
        body: () => ({
          timeoutMs: 5000,
          topics: [
            {
              name: 't',
              partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, replicas: [partitionIndex + 1] })),
            },
            { name: 't', partitions: [{ partitionIndex: 0, replicas: null }] },
            { name: 'nope', partitions: [{ partitionIndex: 0, replicas: [1] }] },
          ],
        }),
      },
    ],
    [ApiKey.ListPartitionReassignments]: [
      { name: 'all', body: () => ({ timeoutMs: 5000, topics: null }) },
      { name: 'named', body: () => ({ timeoutMs: 5000, topics: [{ name: 't', partitionIndexes: [0] }] }) },
    ],
    [ApiKey.ConsumerGroupHeartbeat]: [
      {
        name: 'join',
        body: () => ({
          ...m.defaultConsumerGroupHeartbeatRequest(),
          groupId: 'kip848',
          memberId: 'nulls-member',
          memberEpoch: 0,
          rebalanceTimeoutMs: 30_000,
          subscribedTopicNames: ['t'],
          topicPartitions: [],
        }),
      },
    ],
    [ApiKey.ConsumerGroupDescribe]: [
      {
        name: 'a joined group and an unknown one',
        body: () => ({ groupIds: ['kip848', 'nope'], includeAuthorizedOperations: true }),
      },
    ],
    // Transactions: the error paths (no such producer, unknown partitions, unknown id).
    [ApiKey.AddPartitionsToTxn]: [
      {
        name: 'unknown producer, unknown partition',
        body: () => ({
          v3AndBelowTransactionalId: 'nulls-tx',
          v3AndBelowProducerId: 5n,
          v3AndBelowProducerEpoch: 0,
          v3AndBelowTopics: [
            { name: 't', partitions: [0] },
            { name: 'nope', partitions: [0] },
          ],
        }),
      },
      {
        name: 'unknown producer',
        body: () => ({
          v3AndBelowTransactionalId: 'nulls-tx',
          v3AndBelowProducerId: 5n,
          v3AndBelowProducerEpoch: 0,
          v3AndBelowTopics: [{ name: 't', partitions: [0] }],
        }),
      },
    ],
    [ApiKey.AddOffsetsToTxn]: [
      {
        name: 'unknown producer',
        body: () => ({ transactionalId: 'nulls-tx', producerId: 5n, producerEpoch: 0, groupId: 'g' }),
      },
    ],
    [ApiKey.TxnOffsetCommit]: [
      {
        name: 'unknown producer, unknown partition',
        body: () => ({
          ...m.defaultTxnOffsetCommitRequest(),
          transactionalId: 'nulls-tx',
          groupId: 'g',
          producerId: 5n,
          producerEpoch: 0,
          topics: [
            { name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: null }] },
            { name: 'nope', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: '' }] },
          ],
        }),
      },
    ],
    [ApiKey.EndTxn]: [
      {
        name: 'unknown producer',
        body: () => ({ transactionalId: 'nulls-tx', producerId: 5n, producerEpoch: 0, committed: true }),
      },
    ],
    [ApiKey.DescribeTransactions]: [
      { name: 'unknown and empty', body: () => ({ transactionalIds: ['nulls-none', ''] }) },
    ],
    [ApiKey.DescribeTopicPartitions]: [
      { name: 'all', body: () => ({ topics: [], responsePartitionLimit: 1, cursor: null }) },
      { name: 'named', body: () => ({ topics: [{ name: 't' }, { name: 'nope' }], cursor: null }) },
    ],
    [ApiKey.DescribeProducers]: [
      {
        name: 'known, unknown',
        body: () => ({
          topics: [
            { name: 't', partitionIndexes: [0, 99] },
            { name: 'nope', partitionIndexes: [0] },
          ],
        }),
      },
    ],
    [ApiKey.WriteTxnMarkers]: [
      {
        name: 'old epoch, unknown',
        body: () => ({
          markers: [
            {
              producerId: 1n,
              producerEpoch: 0,
              transactionResult: false,
              coordinatorEpoch: 0,
              topics: [{ name: 'nope', partitionIndexes: [0] }],
            },
          ],
        }),
      },
    ],
    [ApiKey.ListTransactions]: [
      {
        name: 'filtered',
        body: () => ({ stateFilters: ['Ongoing', 'Bogus'], producerIdFilters: [], durationFilter: -1n }),
      },
    ],
    [ApiKey.DescribeClientQuotas]: [
      { name: 'all', body: () => ({ components: [], strict: false }) },
      {
        name: 'default client',
        body: () => ({ components: [{ entityType: 'client-id', matchType: 1, match: null }], strict: true }),
      },
    ],
    [ApiKey.AlterClientQuotas]: [
      {
        name: 'validate only',
        body: () => ({
          entries: [
            {
              entity: [{ entityType: 'client-id', entityName: null }],
              ops: [{ key: 'producer_byte_rate', value: 1e6, remove: false }],
            },
            { entity: [], ops: [] },
          ],
          validateOnly: true,
        }),
      },
    ],
    [ApiKey.DescribeCluster]: [
      { name: 'brokers', body: () => ({ ...m.defaultDescribeClusterRequest(), endpointType: 1 }) },
      { name: 'controllers', body: () => ({ ...m.defaultDescribeClusterRequest(), endpointType: 2 }) },
    ],
    // On this plaintext listener the SASL APIs answer ILLEGAL_SASL_STATE (sasl.test covers sasl+tcp://).
    [ApiKey.SaslHandshake]: [{ name: 'no sasl', body: () => ({ mechanism: 'PLAIN' }) }],
    [ApiKey.SaslAuthenticate]: [{ name: 'no sasl', body: () => ({ authBytes: Buffer.from('\0a\0b') }) }],
    [ApiKey.DescribeUserScramCredentials]: [
      { name: 'all', body: () => ({ users: null }) },
      { name: 'unknown and twice', body: () => ({ users: [{ name: 'nobody' }, { name: 'x' }, { name: 'x' }] }) },
    ],
    [ApiKey.AlterUserScramCredentials]: [
      {
        name: 'refused',
        body: () => ({
          deletions: [{ name: 'nobody', mechanism: 1 }],
          upsertions: [
            { name: 'u', mechanism: 1, iterations: 1, salt: Buffer.from('s'), saltedPassword: Buffer.alloc(32) },
          ],
        }),
      },
    ],
  };

  it('has a scenario for every API the broker serves', async () => {
    const served = [...createHandlers().keys()].sort((a, b) => a - b);
    const missing = served.filter((k) => !SCENARIOS[k]?.length).map((k) => m.API_SPEC_BY_KEY.get(k)!.name);
    expect(missing).toEqual([]);
  });

  it('sends no null record set or array that Kafka sends empty, at every advertised version', async () => {
    const found: string[] = [];
    let checked = 0;
    for (const h of createHandlers().values()) {
      const api = m.API_SPEC_BY_KEY.get(h.apiKey)!;
      const spec = loadSpec(path.join(SPEC_DIR, `${api.name}Response.json`));
      const allowed = KAFKA_SENDS_NULL[spec.name] ?? [];
      for (let v = h.minVersion; v <= h.maxVersion; v++) {
        for (const s of SCENARIOS[h.apiKey] ?? []) {
          const res = await conn.send(h.apiKey, v, s.body(v));
          const nulls: string[] = [];
          nullFields(spec, v, spec.fields, res, '', nulls);
          for (const p of nulls) if (!allowed.includes(p)) found.push(`${api.name} v${v} (${s.name}): ${p} is null`);
          checked++;
        }
      }
    }
    expect(found).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  }, 60_000);

  it('puts in Fetch abortedTransactions what Kafka does: [] read_committed, null read_uncommitted and read errors, [] unknown topic', async () => {
    const partition = async (body: unknown) => (await conn.send(ApiKey.Fetch, 11, body)).responses[0].partitions[0];
    expect(await partition(fetchBody('t', ZERO_UUID, 0n, 1))).toEqual(
      expect.objectContaining({ errorCode: 0, abortedTransactions: [] }),
    );
    expect(await partition(fetchBody('t', ZERO_UUID, 0n, 0))).toEqual(
      expect.objectContaining({ errorCode: 0, abortedTransactions: null }),
    );
    expect(await partition(fetchBody('t', ZERO_UUID, 1000n, 1))).toEqual(
      expect.objectContaining({
        errorCode: 1,
        abortedTransactions: null,
        highWatermark: -1n,
        logStartOffset: -1n,
        records: Buffer.alloc(0),
      }),
    );
    expect(await partition(fetchBody('nope', ZERO_UUID, 0n, 1))).toEqual(
      expect.objectContaining({ errorCode: 3, abortedTransactions: [], records: Buffer.alloc(0) }),
    );
  });
});
