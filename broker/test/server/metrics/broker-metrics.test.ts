import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApiKey } from '../../../src/protocol/api-keys';
import { ErrorCode } from '../../../src/protocol/error-codes';
import { encodeRecordBatch, readBatchHeader } from '../../../src/protocol/record-batch';
import { BrokerMetrics } from '../../../src/server/metrics/broker-metrics';
import { openStorage } from '../../../src/storage/open-storage';
import type { Storage } from '../../../src/storage/storage';
import { ScrapedMetrics } from '../../support/prometheus-text';

const produceError = (code: number) => ({
  responses: [{ name: 't', partitionResponses: [{ index: 0, errorCode: code }] }],
  throttleTimeMs: 0,
});

describe('BrokerMetrics', () => {
  let storage: Storage;
  let open = 0;
  const metrics = (opts: ConstructorParameters<typeof BrokerMetrics>[1] = {}) =>
    new BrokerMetrics({ storage, dbPath: undefined, connections: () => open }, { defaultMetrics: false, ...opts });
  const scrape = async (m: BrokerMetrics) => new ScrapedMetrics(await m.render());

  beforeEach(async () => (storage = await openStorage('memory://')));
  afterEach(() => storage.close());

  it('counts requests by API name, with the served APIs at 0 from the start', async () => {
    const m = metrics({ apiKeys: [ApiKey.Produce, ApiKey.Fetch, ApiKey.Metadata] });
    m.requested(ApiKey.Produce);
    m.requested(ApiKey.Produce);
    m.requested(ApiKey.Metadata);
    const s = await scrape(m);
    expect(s.type('minnow_requests_total')).toBe('counter');
    expect(s.value('minnow_requests_total', { api: 'Produce' })).toBe(2);
    expect(s.value('minnow_requests_total', { api: 'Metadata' })).toBe(1);
    expect(s.value('minnow_requests_total', { api: 'Fetch' })).toBe(0);
    m.requested(ApiKey.Fetch);
    expect((await scrape(m)).value('minnow_requests_total', { api: 'Fetch' })).toBe(1); // totals, not deltas
    expect((await scrape(m)).value('minnow_requests_total', { api: 'Produce' })).toBe(2);
  });

  it('counts error responses by API and Kafka error name, once per response and distinct error', async () => {
    const m = metrics();
    m.answered(ApiKey.Produce, produceError(ErrorCode.NOT_LEADER_OR_FOLLOWER));
    m.answered(ApiKey.Produce, {
      responses: [
        {
          name: 't',
          partitionResponses: [
            { index: 0, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER },
            { index: 1, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER },
            { index: 2, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
          ],
        },
      ],
    });
    m.answered(ApiKey.Produce, produceError(ErrorCode.NONE));
    m.answered(ApiKey.Metadata, { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR });
    m.answered(ApiKey.Produce, null); // acks=0: no response, nothing counted
    const s = await scrape(m);
    expect(s.type('minnow_request_errors_total')).toBe('counter');
    expect(s.value('minnow_request_errors_total', { api: 'Produce', error: 'NOT_LEADER_OR_FOLLOWER' })).toBe(2);
    expect(s.value('minnow_request_errors_total', { api: 'Produce', error: 'UNKNOWN_TOPIC_OR_PARTITION' })).toBe(1);
    expect(s.value('minnow_request_errors_total', { api: 'Metadata', error: 'UNKNOWN_SERVER_ERROR' })).toBe(1);
    expect(s.families.get('minnow_request_errors_total')!.samples).toHaveLength(3);
  });

  it('counts bytes and records stored, and the record bytes of Fetch responses', async () => {
    const m = metrics();
    m.stored(1000, 10);
    m.stored(24, 1);
    m.answered(ApiKey.Fetch, {
      responses: [{ topic: 't', partitions: [{ partitionIndex: 0, errorCode: 0, records: Buffer.alloc(300) }] }],
    });
    m.answered(ApiKey.Produce, produceError(0)); // not a fetch: no bytes out
    const s = await scrape(m);
    expect(s.value('minnow_bytes_in_total')).toBe(1024);
    expect(s.value('minnow_records_in_total')).toBe(11);
    expect(s.value('minnow_bytes_out_total')).toBe(300);
  });

  it('reads lag, topics, partitions and connections from its sources when scraped', async () => {
    const m = metrics({ maxLagGroups: 1 });
    let s = await scrape(m);
    expect(s.value('minnow_consumer_group_lag_max')).toBe(0);
    expect(s.families.get('minnow_consumer_group_lag')?.samples ?? []).toEqual([]);
    await storage.createTopic('t', 3, {});
    await storage.createTopic('u', 2, {});
    for (let i = 0; i < 5; i++) {
      const data = encodeRecordBatch({ records: [{ value: Buffer.from('x') }] });
      await storage.append(
        [{ topic: 't', partition: 1, batches: [{ header: readBatchHeader(data), data }], logAppendTime: false }],
        0,
      );
    }
    await storage.commitOffsets('slow', [{ topic: 't', partition: 1, offset: 1, leaderEpoch: -1, metadata: null }], 0);
    await storage.commitOffsets('fast', [{ topic: 't', partition: 1, offset: 4, leaderEpoch: -1, metadata: null }], 0);
    open = 3;
    s = await scrape(m);
    expect(s.type('minnow_consumer_group_lag')).toBe('gauge');
    expect(s.value('minnow_consumer_group_lag', { group: 'slow' })).toBe(4);
    expect(s.value('minnow_consumer_group_lag', { group: 'fast' })).toBeUndefined(); // past maxLagGroups
    expect(s.value('minnow_consumer_group_lag_max')).toBe(4);
    expect(s.value('minnow_consumer_groups')).toBe(2);
    expect(s.value('minnow_topics')).toBe(2);
    expect(s.value('minnow_partitions')).toBe(5);
    expect(s.value('minnow_connections')).toBe(3);
    // memory:// has no file: 0, as documented
    expect(s.value('minnow_database_bytes')).toBe(0);
    expect(s.value('minnow_data_volume_bytes')).toBe(0);
    expect(s.value('minnow_data_volume_free_bytes')).toBe(0);
    // A group whose lag went away is no longer a series.
    await storage.deleteOffsets('slow');
    s = await scrape(m);
    expect(s.value('minnow_consumer_group_lag', { group: 'slow' })).toBeUndefined();
    expect(s.value('minnow_consumer_group_lag', { group: 'fast' })).toBe(1);
  });

  it('counts failed SASL logins and connections refused over the unauthenticated cap', async () => {
    const logins = { failedLogins: 0, refusedConnections: 0 };
    const m = new BrokerMetrics(
      { storage, dbPath: undefined, connections: () => 0, logins },
      { defaultMetrics: false },
    );
    expect((await scrape(m)).value('minnow_sasl_failed_logins_total')).toBe(0);
    logins.failedLogins = 12;
    logins.refusedConnections = 2;
    const s = await scrape(m);
    expect(s.type('minnow_sasl_failed_logins_total')).toBe('counter');
    expect(s.value('minnow_sasl_failed_logins_total')).toBe(12);
    expect(s.value('minnow_sasl_connections_refused_total')).toBe(2);
  });

  it('escapes group ids that are not plain words, so the text still parses', async () => {
    const odd = 'billing "eu"\\west\nsecond line';
    await storage.createTopic('t', 1, {});
    const data = encodeRecordBatch({ records: [{ value: Buffer.from('x') }] });
    await storage.append(
      [{ topic: 't', partition: 0, batches: [{ header: readBatchHeader(data), data }], logAppendTime: false }],
      0,
    );
    await storage.commitOffsets(odd, [{ topic: 't', partition: 0, offset: 0, leaderEpoch: -1, metadata: null }], 0);
    const s = await scrape(metrics());
    expect(s.value('minnow_consumer_group_lag', { group: odd })).toBe(1);
  });

  it('reports the SQLite file and its volume', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-metrics-'));
    const dbPath = path.join(dir, 'minnow.db');
    const sqlite = await openStorage(`sqlite://${dbPath}`);
    try {
      const m = new BrokerMetrics({ storage: sqlite, dbPath, connections: () => 0 }, { defaultMetrics: false });
      const s = await scrape(m);
      expect(s.value('minnow_database_bytes')).toBe(
        fs.statSync(dbPath).size + (fs.existsSync(`${dbPath}-wal`) ? fs.statSync(`${dbPath}-wal`).size : 0),
      );
      expect(s.value('minnow_database_bytes')).toBeGreaterThan(0);
      expect(s.value('minnow_data_volume_bytes')).toBeGreaterThan(s.value('minnow_data_volume_free_bytes')!);
    } finally {
      await sqlite.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("includes prom-client's process metrics unless told not to", async () => {
    const withDefaults = new BrokerMetrics({ storage, dbPath: undefined, connections: () => 0 });
    const s = await scrape(withDefaults);
    expect(s.value('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(s.type('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect((await scrape(metrics())).type('process_resident_memory_bytes')).toBeUndefined();
  });
});
