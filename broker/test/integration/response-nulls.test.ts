// Guard: no response carries null where Kafka sends an empty record set or array. Every handler in
// the registry is called at every version it advertises, with scenarios that reach its error paths,
// over a real connection; each decoded response is walked with Kafka's JSON spec, and any nullable
// records/bytes/array/struct field that came back null fails the test unless Kafka sends null there
// too (KAFKA_SENDS_NULL). librdkafka drops a whole Fetch response whose record set is null.
// The scenarios per API are in response-nulls/*-scenarios.ts, the walk in response-nulls/null-fields.ts.
import * as path from 'node:path';
import { loadSpec, REPO_SPEC_DIR } from '../../scripts/protocol-spec';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import * as m from '../../src/protocol/messages';
import { encodeRecordBatch } from '../../src/protocol/record-batch';
import { ZERO_UUID } from '../../src/protocol/uuid';
import type { RunningBroker } from '../../src/server/broker';
import { createHandlers } from '../../src/server/handlers';
import { startTestBroker } from './helpers';
import { ADMIN_SCENARIOS } from './response-nulls/admin-scenarios';
import { GROUP_SCENARIOS } from './response-nulls/group-scenarios';
import { KAFKA_SENDS_NULL, nullFields } from './response-nulls/null-fields';
import { recordScenarios } from './response-nulls/record-scenarios';
import { fetchBody } from './response-nulls/scenario';
import type { ScenarioTable, TopicIds } from './response-nulls/scenario';
import { SECURITY_SCENARIOS } from './response-nulls/security-scenarios';
import { TRANSACTION_SCENARIOS } from './response-nulls/transaction-scenarios';

/** Kafka's message specs: the copy in the repository unless KAFKA_SPEC_DIR names another. */
const SPEC_DIR = process.env.KAFKA_SPEC_DIR ?? REPO_SPEC_DIR;

describe('responses never carry null where Kafka sends empty', () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  const ids: TopicIds = { topicId: ZERO_UUID, emptyId: ZERO_UUID };

  beforeAll(async () => {
    broker = await startTestBroker('memory://', { config: { groupInitialRebalanceDelayMs: 0 } });
    ids.topicId = (await broker.context.storage.createTopic('t', 1, {})).topicId;
    ids.emptyId = (await broker.context.storage.createTopic('empty', 1, {})).topicId;
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

  const SCENARIOS: ScenarioTable = {
    ...recordScenarios(ids),
    ...GROUP_SCENARIOS,
    ...TRANSACTION_SCENARIOS,
    ...ADMIN_SCENARIOS,
    ...SECURITY_SCENARIOS,
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
