// The broker's metrics registry (prom-client): counters bumped on the request path, gauges read
// from storage and the connections when scraped. Exists only while MINNOW_METRICS_LISTENER is set,
// so a broker without the endpoint pays one `undefined` check per request.
//
// On the request path a counter is a plain number (an array slot, a map entry): prom-client's own
// inc() hashes its labels on every call. The numbers are handed to prom-client when scraped
// (render()), which is also when the gauges are read: nothing runs between scrapes.
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { ApiKey } from '../../protocol/api-keys';
import { errorName } from '../../protocol/error-codes';
import type { FetchResponse } from '../../protocol/messages';
import type { Storage } from '../../storage/storage';
import { consumerLag } from './consumer-lag';
import { fetchRecordBytes, responseErrorCodes } from './response-errors';
import { databaseBytes, volumeBytes } from './storage-size';

/**
 * Groups given their own minnow_consumer_group_lag series, the most lagging first: a scrape's size
 * must not grow with every group id a client ever committed under (500 series are ~40 KB of text).
 * minnow_consumer_group_lag_max and minnow_consumer_groups still count every group.
 */
export const MAX_LAG_GROUPS = 500;

/** How often prom-client's nodejs_eventloop_lag_* histogram samples the event loop (see below). */
const EVENT_LOOP_SAMPLE_MS = 100;

/** What the scrape-time gauges read. */
export interface MetricSources {
  storage: Storage;
  /** The SQLite database file; undefined for memory:// (its size and volume are reported as 0). */
  dbPath: string | undefined;
  /** Client connections open now. */
  connections(): number;
  /** SASL login counts (server/sasl/login-throttle.ts); undefined without sasl+ listeners. */
  logins?: { readonly failedLogins: number; readonly refusedConnections: number };
}

export interface BrokerMetricsOptions {
  /** prom-client's process and Node.js metrics (process_resident_memory_bytes ...); default true. */
  defaultMetrics?: boolean;
  maxLagGroups?: number;
  /**
   * APIs whose minnow_requests_total series exist from the start at 0 (the broker passes those it
   * serves), so a rate over the first requests has a point to start from.
   */
  apiKeys?: readonly number[];
}

const API_NAMES = new Map<number, string>(Object.entries(ApiKey).map(([name, key]) => [key, name]));
const apiName = (key: number) => API_NAMES.get(key) ?? `ApiKey${key}`;

export class BrokerMetrics {
  readonly registry = new Registry();
  /** Requests by API key. */
  private readonly requestCounts: number[] = [];
  /** Responses with an error, by apiKey * 65536 + (error code & 0xffff). */
  private readonly errorCounts = new Map<number, number>();
  private bytesIn = 0;
  private recordsIn = 0;
  private bytesOut = 0;

  private readonly requests: Counter<'api'>;
  private readonly requestErrors: Counter<'api' | 'error'>;
  private readonly bytesInTotal: Counter;
  private readonly bytesOutTotal: Counter;
  private readonly recordsInTotal: Counter;
  private readonly failedLogins: Counter;
  private readonly refusedUnauthenticated: Counter;
  private readonly groupLag: Gauge<'group'>;
  private readonly groupLagMax: Gauge;
  private readonly groups: Gauge;
  private readonly dbBytes: Gauge;
  private readonly volumeTotal: Gauge;
  private readonly volumeFree: Gauge;
  private readonly connections: Gauge;
  private readonly topics: Gauge;
  private readonly partitions: Gauge;
  private readonly maxLagGroups: number;

  constructor(
    private readonly sources: MetricSources,
    options: BrokerMetricsOptions = {},
  ) {
    this.maxLagGroups = options.maxLagGroups ?? MAX_LAG_GROUPS;
    for (const key of options.apiKeys ?? []) this.requestCounts[key] = 0;
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'minnow_requests_total',
      help: 'Kafka requests received and handled, by API (Produce, Fetch ...)',
      labelNames: ['api'],
      registers,
    });
    this.requestErrors = new Counter({
      name: 'minnow_request_errors_total',
      help: "Responses carrying an error code (top level or any topic/partition's), once per response and distinct error, by API and Kafka error name",
      labelNames: ['api', 'error'],
      registers,
    });
    this.bytesInTotal = new Counter({
      name: 'minnow_bytes_in_total',
      help: 'Record-batch bytes stored by Produce',
      registers,
    });
    this.bytesOutTotal = new Counter({
      name: 'minnow_bytes_out_total',
      help: 'Record-batch bytes returned by Fetch',
      registers,
    });
    this.recordsInTotal = new Counter({
      name: 'minnow_records_in_total',
      help: 'Records stored by Produce',
      registers,
    });
    this.failedLogins = new Counter({
      name: 'minnow_sasl_failed_logins_total',
      help: 'SASL logins refused (wrong password, unknown user, unsupported mechanism ...); each answered after its delay',
      registers,
    });
    this.refusedUnauthenticated = new Counter({
      name: 'minnow_sasl_connections_refused_total',
      help: 'Connections of sasl+ listeners closed on arrival: their address held MINNOW_MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP connections not logged in (or failed within their delay)',
      registers,
    });
    this.groupLag = new Gauge({
      name: 'minnow_consumer_group_lag',
      help: `Records not yet consumed by a group: sum over its committed partitions of high watermark - committed offset (the ${this.maxLagGroups} most lagging groups)`,
      labelNames: ['group'],
      registers,
    });
    this.groupLagMax = new Gauge({
      name: 'minnow_consumer_group_lag_max',
      help: 'The largest minnow_consumer_group_lag of all groups (0 without groups)',
      registers,
    });
    this.groups = new Gauge({
      name: 'minnow_consumer_groups',
      help: 'Consumer groups with committed offsets',
      registers,
    });
    this.dbBytes = new Gauge({
      name: 'minnow_database_bytes',
      help: 'Size of the SQLite database file plus its -wal (0 for memory://)',
      registers,
    });
    this.volumeTotal = new Gauge({
      name: 'minnow_data_volume_bytes',
      help: 'Size of the file system holding the database (0 for memory://)',
      registers,
    });
    this.volumeFree = new Gauge({
      name: 'minnow_data_volume_free_bytes',
      help: "Free bytes the broker may use on the database's file system (0 for memory://)",
      registers,
    });
    this.connections = new Gauge({
      name: 'minnow_connections',
      help: 'Open client connections (all Kafka listeners)',
      registers,
    });
    this.topics = new Gauge({ name: 'minnow_topics', help: 'Topics', registers });
    this.partitions = new Gauge({ name: 'minnow_partitions', help: 'Partitions of all topics', registers });
    if (options.defaultMetrics ?? true) {
      // The event-loop delay histogram wakes the process every `eventLoopMonitoringPrecision` ms,
      // even idle: prom-client's 10 ms cost 0.35 % of a core on an idle broker here (20 ms: 0.25 %,
      // 100 ms: 0.05 %), a few % of a t3.micro's 10 % baseline. A stall still shows at 100 ms: it
      // delays the next wake-up by its length, which is what the histogram records.
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    }
  }

  /** A request was decoded and is being handled. */
  requested(apiKey: number): void {
    this.requestCounts[apiKey] = (this.requestCounts[apiKey] ?? 0) + 1;
  }

  /** A response is going out (the body as encoded, after throttling); null: none due (acks=0). */
  answered(apiKey: number, body: unknown): void {
    if (body === null) return;
    for (const code of responseErrorCodes(body)) {
      const key = apiKey * 65536 + (code & 0xffff);
      this.errorCounts.set(key, (this.errorCounts.get(key) ?? 0) + 1);
    }
    if (apiKey === ApiKey.Fetch) this.bytesOut += fetchRecordBytes(body as FetchResponse);
  }

  /** Produce stored these (after the commit). */
  stored(bytes: number, records: number): void {
    this.bytesIn += bytes;
    this.recordsIn += records;
  }

  /** Prometheus text exposition (format 0.0.4) of every metric, read now. */
  async render(): Promise<string> {
    await this.refresh();
    return this.registry.metrics();
  }

  /** `text/plain; version=0.0.4; charset=utf-8`: what Prometheus and the CloudWatch agent expect. */
  get contentType(): string {
    return this.registry.contentType;
  }

  private async refresh(): Promise<void> {
    // Counters: reset, then set to the running totals (prom-client counters only go up by inc()).
    this.requests.reset();
    this.requestCounts.forEach((n, key) => this.requests.inc({ api: apiName(key) }, n));
    this.requestErrors.reset();
    for (const [key, n] of this.errorCounts) {
      const code = ((key & 0xffff) << 16) >> 16; // back to a signed int16 (UNKNOWN_SERVER_ERROR is -1)
      this.requestErrors.inc({ api: apiName(Math.floor(key / 65536)), error: errorName(code) }, n);
    }
    setCounter(this.bytesInTotal, this.bytesIn);
    setCounter(this.recordsInTotal, this.recordsIn);
    setCounter(this.bytesOutTotal, this.bytesOut);
    setCounter(this.failedLogins, this.sources.logins?.failedLogins ?? 0);
    setCounter(this.refusedUnauthenticated, this.sources.logins?.refusedConnections ?? 0);

    const { storage, dbPath } = this.sources;
    // Storage first (each await may let requests run), then every gauge set at once.
    const lag = await consumerLag(storage, this.maxLagGroups);
    const [topics, partitions] = await Promise.all([storage.listTopics(), storage.totalPartitions()]);
    this.groupLag.reset();
    for (const g of lag.groups) this.groupLag.set({ group: g.group }, g.lag);
    this.groupLagMax.set(lag.max);
    this.groups.set(lag.groupCount);
    const volume = dbPath === undefined ? { total: 0, free: 0 } : volumeBytes(dbPath);
    this.dbBytes.set(dbPath === undefined ? 0 : databaseBytes(dbPath));
    this.volumeTotal.set(volume.total);
    this.volumeFree.set(volume.free);
    this.connections.set(this.sources.connections());
    this.topics.set(topics.length);
    this.partitions.set(partitions);
  }
}

function setCounter(counter: Counter, value: number): void {
  counter.reset();
  counter.inc(value);
}
