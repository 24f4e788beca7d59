import { ConfigError, loadConfig } from '../../src/server/config';
import { parseListenerUrl, resolveListeners } from '../../src/server/listeners';

describe('broker configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.listeners).toEqual([{ host: '0.0.0.0', port: 9092, securityProtocol: 'PLAINTEXT' }]);
    expect(c.advertisedListeners).toBeUndefined();
    expect(resolveListeners(c.listeners, c.advertisedListeners)).toEqual([
      {
        name: 'PLAINTEXT',
        securityProtocol: 'PLAINTEXT',
        host: '0.0.0.0',
        port: 9092,
        advertised: { host: '127.0.0.1', port: 9092 },
      },
    ]);
    expect(c.storageUrl).toEqual({ kind: 'sqlite', url: 'sqlite://./data/minnow.db', path: './data/minnow.db' });
    expect(c.logLevel).toBe('info');
    expect(c.sqliteSynchronous).toBe('normal');
    expect(c.autoCreateTopics).toBe(true);
    expect(c.numPartitions).toBe(1);
    expect(c.groupInitialRebalanceDelayMs).toBe(3000); // Kafka's group.initial.rebalance.delay.ms
    // Sized for a 1 GiB box (issue 11): 16 MiB frames, 64 MiB of requests held, 1000 connections.
    expect(c.maxRequestBytes).toBe(16 * 1024 * 1024);
    expect(c.queuedMaxRequestBytes).toBe(64 * 1024 * 1024);
    expect(c.connectionsMaxIdleMs).toBe(600_000); // Kafka's connections.max.idle.ms
    expect(c.maxConnections).toBe(1000);
    expect(c.maxConnectionsPerIp).toBe(2 ** 31 - 1); // Kafka's max.connections.per.ip: unbounded
    expect([...c.explicit!]).toEqual([]);
  });

  it("reads Tansu's variable names, and flags override them", () => {
    const env = {
      LISTENER_URL: 'tcp://127.0.0.1:19092',
      ADVERTISED_LISTENER_URL: 'tcp://broker.example:9092',
      STORAGE_ENGINE: 'memory://',
      CLUSTER_ID: 'RvQwrYegSUCkIPkaiAZQlQ',
      NODE_ID: '111',
      LOG_LEVEL: 'DEBUG',
    };
    const c = loadConfig(env, { 'log-level': 'warn', storage: 'sqlite:///var/lib/minnow/m.db' });
    expect(c.listeners).toEqual([{ host: '127.0.0.1', port: 19092, securityProtocol: 'PLAINTEXT' }]);
    expect(resolveListeners(c.listeners, c.advertisedListeners)[0]!.advertised).toEqual({
      host: 'broker.example',
      port: 9092,
    });
    expect(c.storageUrl).toEqual({
      kind: 'sqlite',
      url: 'sqlite:///var/lib/minnow/m.db',
      path: '/var/lib/minnow/m.db',
    });
    expect(c.clusterId).toBe('RvQwrYegSUCkIPkaiAZQlQ');
    expect(c.nodeId).toBe(111);
    expect(c.logLevel).toBe('warn');
    // What DescribeConfigs reports as STATIC_BROKER_CONFIG rather than DEFAULT_CONFIG.
    expect([...c.explicit!].sort()).toEqual([
      'advertisedListeners',
      'clusterId',
      'listeners',
      'logLevel',
      'nodeId',
      'storageUrl',
    ]);
  });

  it('bounds partitions per request (Kafka 4.0: 10,000), per topic and on the broker, by env var or flag', () => {
    expect(loadConfig({})).toMatchObject({
      maxPartitions: 10000,
      maxPartitionsPerTopic: 10000,
      maxPartitionsPerRequest: 10000,
    });
    const c = loadConfig(
      { MINNOW_MAX_PARTITIONS: '500', MINNOW_MAX_PARTITIONS_PER_TOPIC: '50' },
      { 'max-partitions-per-request': '100', 'max-partitions': '600' },
    );
    expect(c).toMatchObject({ maxPartitions: 600, maxPartitionsPerTopic: 50, maxPartitionsPerRequest: 100 });
    expect(() => loadConfig({ MINNOW_MAX_PARTITIONS: '0' })).toThrow(
      'MINNOW_MAX_PARTITIONS="0" is not valid: expected an integer 1..1000000',
    );
    // Auto-created topics get NUM_PARTITIONS partitions: a count over the per-topic bound could never be used.
    expect(() => loadConfig({ NUM_PARTITIONS: '8', MINNOW_MAX_PARTITIONS_PER_TOPIC: '4' })).toThrow(
      'NUM_PARTITIONS=8 is over MINNOW_MAX_PARTITIONS_PER_TOPIC=4: no topic could be auto-created; lower the one or raise the other',
    );
  });

  it('names the variable, the value and the expected form when a value is bad', () => {
    expect(() => loadConfig({ LISTENER_URL: 'localhost:9092' })).toThrow(
      new ConfigError(
        'LISTENER_URL="localhost:9092" is not valid: expected a comma-separated list of SCHEME://HOST:PORT, SCHEME one of tcp, tls, sasl+tcp, sasl+tls',
      ),
    );
    expect(() => loadConfig({ STORAGE_ENGINE: 'postgres://x' })).toThrow(
      /STORAGE_ENGINE="postgres:\/\/x" is not valid: expected sqlite:\/\/PATH/,
    );
    // Parsed once, here, by the parser openStorage uses: a bad option or no file name stops start-up.
    expect(() => loadConfig({ STORAGE_ENGINE: 'sqlite://x.db?sync=full' })).toThrow(
      /STORAGE_ENGINE="sqlite:\/\/x.db\?sync=full" is not valid/,
    );
    expect(() => loadConfig({}, { storage: 'sqlite://data/' })).toThrow(/--storage="sqlite:\/\/data\/" is not valid/);
    expect(() => loadConfig({}, { 'log-level': 'loud' })).toThrow(
      /--log-level="loud" is not valid: expected error\|warn\|info\|debug/,
    );
    expect(() => loadConfig({ NODE_ID: '-3' })).toThrow(/NODE_ID="-3"/);
  });

  it('refuses a request frame limit larger than the request memory pool, which could never hold such a frame', () => {
    expect(() => loadConfig({ SOCKET_REQUEST_MAX_BYTES: '33554432', QUEUED_MAX_REQUEST_BYTES: '16777216' })).toThrow(
      new ConfigError(
        'SOCKET_REQUEST_MAX_BYTES=33554432 is larger than QUEUED_MAX_REQUEST_BYTES=16777216: a request that big could never be read; raise QUEUED_MAX_REQUEST_BYTES or lower SOCKET_REQUEST_MAX_BYTES',
      ),
    );
    expect(
      loadConfig({}, { 'max-request-bytes': '33554432', 'queued-max-request-bytes': '33554432' }).queuedMaxRequestBytes,
    ).toBe(33554432);
    expect(() => loadConfig({ MAX_CONNECTIONS: '0' })).toThrow(
      /MAX_CONNECTIONS="0" is not valid: expected an integer 1\.\.2147483647/,
    );
  });

  it('takes FETCH_MAX_BYTES (fetch.max.bytes) from 1024 bytes, 16 MiB by default', () => {
    expect(loadConfig({}).fetchMaxBytes).toBe(16 * 1024 * 1024);
    expect(loadConfig({ FETCH_MAX_BYTES: '1048576' }).fetchMaxBytes).toBe(1048576);
    expect(loadConfig({}, { 'fetch-max-bytes': '2147483647' }).fetchMaxBytes).toBe(2 ** 31 - 1);
    expect(() => loadConfig({ FETCH_MAX_BYTES: '1023' })).toThrow(
      new ConfigError('FETCH_MAX_BYTES="1023" is not valid: expected an integer 1024..2147483647'),
    );
    expect(() => loadConfig({}, { 'fetch-max-bytes': '16MiB' })).toThrow(/--fetch-max-bytes="16MiB" is not valid/);
  });

  it('parses listener URLs: the scheme is the security protocol', () => {
    expect(parseListenerUrl('tcp://[::1]:9092')).toEqual({ host: '::1', port: 9092, securityProtocol: 'PLAINTEXT' });
    expect(parseListenerUrl('tls://h:9093')).toMatchObject({ securityProtocol: 'SSL' });
    expect(parseListenerUrl('sasl+tcp://h:9094')).toMatchObject({ securityProtocol: 'SASL_PLAINTEXT' });
    expect(parseListenerUrl('SASL+TLS://h:9095')).toMatchObject({ securityProtocol: 'SASL_SSL' });
    expect(parseListenerUrl('tcp://host:99999')).toBeUndefined();
    expect(parseListenerUrl('http://host:1')).toBeUndefined();
    expect(parseListenerUrl('tcp://host')).toBeUndefined();
  });

  it('takes a list of listeners, advertised by position, named after their protocol', () => {
    const c = loadConfig({
      LISTENER_URL: 'sasl+tls://0.0.0.0:9093, tcp://127.0.0.1:9092,tcp://127.0.0.1:9094',
      ADVERTISED_LISTENER_URL: 'sasl+tls://broker.example:9093',
      TLS_CERT_FILE: '/etc/minnow/cert.pem', // a TLS listener needs them (read at start, not here)
      TLS_KEY_FILE: '/etc/minnow/key.pem',
    });
    expect(resolveListeners(c.listeners, c.advertisedListeners)).toEqual([
      {
        name: 'SASL_SSL',
        securityProtocol: 'SASL_SSL',
        host: '0.0.0.0',
        port: 9093,
        advertised: { host: 'broker.example', port: 9093 },
      },
      {
        name: 'PLAINTEXT',
        securityProtocol: 'PLAINTEXT',
        host: '127.0.0.1',
        port: 9092,
        advertised: { host: '127.0.0.1', port: 9092 },
      },
      {
        name: 'PLAINTEXT_2',
        securityProtocol: 'PLAINTEXT',
        host: '127.0.0.1',
        port: 9094,
        advertised: { host: '127.0.0.1', port: 9094 },
      },
    ]);
    // Tansu's compose files advertise tcp:// whatever the listener: accepted.
    expect(() =>
      loadConfig({ LISTENER_URL: 'sasl+tcp://0.0.0.0:9092', ADVERTISED_LISTENER_URL: 'tcp://b:9092' }),
    ).not.toThrow();
  });

  it('refuses listener lists that cannot work, saying why', () => {
    expect(() => loadConfig({ LISTENER_URL: 'tcp://a:9092,tcp://a:9092' })).toThrow(
      /LISTENER_URL="tcp:\/\/a:9092,tcp:\/\/a:9092" is not valid: expected a comma-separated list/,
    );
    expect(() => loadConfig({ LISTENER_URL: 'tcp://a:9092,' })).toThrow(/LISTENER_URL=.* is not valid/);
    expect(() => loadConfig({ LISTENER_URL: 'tcp://a:9092', ADVERTISED_LISTENER_URL: 'tcp://b:1,tcp://c:2' })).toThrow(
      new ConfigError(
        'ADVERTISED_LISTENER_URL has 2 addresses for 1 listener(s): they are matched by position; give at most one per LISTENER_URL entry',
      ),
    );
    expect(() => loadConfig({ LISTENER_URL: 'tcp://a:9092', ADVERTISED_LISTENER_URL: 'tls://b:1' })).toThrow(
      /ADVERTISED_LISTENER_URL entry 1 says SSL but LISTENER_URL entry 1 is PLAINTEXT/,
    );
  });
});

describe('consumer group (KIP-848) settings', () => {
  it("has Kafka's defaults and takes a shorter heartbeat with its bound lowered", () => {
    const d = loadConfig({});
    expect({
      session: d.groupConsumerSessionTimeoutMs,
      heartbeat: d.groupConsumerHeartbeatIntervalMs,
      assignors: d.groupConsumerAssignors,
    }).toEqual({ session: 45_000, heartbeat: 5_000, assignors: ['uniform', 'range'] });
    const fast = loadConfig({
      GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: '500',
      GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS: '100',
      GROUP_CONSUMER_ASSIGNORS: 'org.apache.kafka.coordinator.group.assignor.RangeAssignor',
    });
    expect([fast.groupConsumerHeartbeatIntervalMs, fast.groupConsumerAssignors]).toEqual([500, ['range']]);
  });

  it('refuses a heartbeat interval outside its bounds and an unknown assignor, naming the settings', () => {
    expect(() => loadConfig({ GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: '500' })).toThrow(
      /GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS=500 is outside GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS=5000/,
    );
    expect(() => loadConfig({ GROUP_CONSUMER_ASSIGNORS: 'sticky' })).toThrow(ConfigError);
  });
});

describe('share group (KIP-932) settings', () => {
  it("has Kafka's defaults and bounds", () => {
    const d = loadConfig({});
    expect([
      d.groupShareRecordLockDurationMs,
      d.groupShareDeliveryCountLimit,
      d.groupSharePartitionMaxRecordLocks,
      d.groupShareMaxSize,
      d.groupShareSessionTimeoutMs,
      d.groupShareHeartbeatIntervalMs,
    ]).toEqual([30_000, 5, 2000, 200, 45_000, 5_000]);
    expect(() => loadConfig({ GROUP_SHARE_DELIVERY_COUNT_LIMIT: '11' })).toThrow(/GROUP_SHARE_DELIVERY_COUNT_LIMIT/);
    expect(() => loadConfig({ GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS: '99' })).toThrow(ConfigError);
  });

  it('refuses a lock duration outside its min/max, naming the settings', () => {
    expect(() => loadConfig({ GROUP_SHARE_RECORD_LOCK_DURATION_MS: '5000' })).toThrow(
      /GROUP_SHARE_RECORD_LOCK_DURATION_MS=5000 is outside GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS=15000/,
    );
    const fast = loadConfig({
      GROUP_SHARE_RECORD_LOCK_DURATION_MS: '2000',
      GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS: '1000',
    });
    expect(fast.groupShareRecordLockDurationMs).toBe(2000);
  });
});
