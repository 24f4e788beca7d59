// What clients may take of the broker: request sizes, request and fetch memory, connections.
import { int, Setting } from './setting';

export interface LimitSettings {
  /** Largest request frame accepted (Kafka's socket.request.max.bytes). */
  maxRequestBytes: number;
  /** Request bytes held across connections: frames being read + requests not yet answered (queued.max.request.bytes). */
  queuedMaxRequestBytes: number;
  /** Connections with no request for this long are closed (connections.max.idle.ms). */
  connectionsMaxIdleMs: number;
  /** Connections accepted at once; more are closed on arrival (max.connections). */
  maxConnections: number;
  /** Connections accepted at once from one IP address (max.connections.per.ip). */
  maxConnectionsPerIp: number;
  /** Most record bytes one Fetch response carries, whatever the request asks (Kafka's fetch.max.bytes). */
  fetchMaxBytes: number;
  /** Fetched record bytes held across connections until written (server/response-memory.ts). */
  fetchResponseMemoryBytes: number;
}

export const LIMIT_SETTINGS = [
  {
    key: 'maxRequestBytes',
    env: 'SOCKET_REQUEST_MAX_BYTES',
    flag: 'max-request-bytes',
    doc: 'largest request frame accepted (socket.request.max.bytes; Kafka: 100 MiB). Producers send at most max.request.size (1 MiB by default); at most QUEUED_MAX_REQUEST_BYTES',
    default: '16777216',
    expected: 'an integer 1024..1073741824',
    parse: int(1024, 2 ** 30),
  },
  // Connection-level limits (issue 11), Kafka's names; defaults sized for a 1 GiB broker.
  {
    key: 'queuedMaxRequestBytes',
    env: 'QUEUED_MAX_REQUEST_BYTES',
    flag: 'queued-max-request-bytes',
    doc: 'request bytes held in memory across all connections (frames being read + requests not yet answered); when full, connections are not read until memory is freed (queued.max.request.bytes; Kafka: unbounded). At least SOCKET_REQUEST_MAX_BYTES',
    default: '67108864',
    expected: 'an integer 1024..2147483647',
    parse: int(1024, 2 ** 31 - 1),
  },
  {
    key: 'connectionsMaxIdleMs',
    env: 'CONNECTIONS_MAX_IDLE_MS',
    flag: 'connections-max-idle-ms',
    doc: "close connections that sent nothing and have no request in flight for this long (connections.max.idle.ms; Kafka's default)",
    default: '600000',
    expected: 'an integer 100..2147483647',
    parse: int(100, 2 ** 31 - 1),
  },
  {
    key: 'maxConnections',
    env: 'MAX_CONNECTIONS',
    flag: 'max-connections',
    doc: 'connections open at once; further ones are closed on arrival (max.connections; Kafka: unbounded)',
    default: '1000',
    expected: 'an integer 1..2147483647',
    parse: int(1, 2 ** 31 - 1),
  },
  {
    key: 'maxConnectionsPerIp',
    env: 'MAX_CONNECTIONS_PER_IP',
    flag: 'max-connections-per-ip',
    doc: "connections open at once from one IP address; further ones are closed on arrival (max.connections.per.ip; Kafka's default: unbounded)",
    default: '2147483647',
    expected: 'an integer 1..2147483647',
    parse: int(1, 2 ** 31 - 1),
  },
  // Fetch (issue 11 item 2). Kafka's default is 55 MiB, sized for a JVM that sends log segments
  // with sendfile; minnow holds each response in memory (read from SQLite, then written), so a
  // 1 GiB box gets 16 MiB: 20 consumers fetching at once stay near 320 MiB, and one fetch still
  // moves far more than the clients' per-partition default (1 MiB).
  {
    key: 'fetchMaxBytes',
    env: 'FETCH_MAX_BYTES',
    flag: 'fetch-max-bytes',
    doc: 'most record bytes in one fetch response, whatever the client asks (fetch.max.bytes); one batch bigger than this is still sent whole so consumers progress (KIP-74)',
    default: '16777216',
    expected: 'an integer 1024..2147483647',
    parse: int(1024, 2 ** 31 - 1),
  },
  {
    key: 'fetchResponseMemoryBytes',
    env: 'MINNOW_FETCH_RESPONSE_MEMORY_BYTES',
    flag: 'fetch-response-memory-bytes',
    doc: 'fetched record bytes (Fetch and ShareFetch) held in memory across all connections, from the read until the client has taken the response (server/response-memory.ts); when full, fetches read nothing until memory frees (consumers see empty fetches, share consumers acquire nothing). Kafka: none (it uses sendfile)',
    default: '268435456',
    expected: 'an integer 1024..2147483647',
    parse: int(1024, 2 ** 31 - 1),
  },
] as const satisfies readonly Setting<LimitSettings>[];
