import { ConfigError, loadConfig, parseEndpointUrl } from '../../src/server/config';

describe('broker configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.listener).toEqual({ host: '0.0.0.0', port: 9092 });
    expect(c.advertised).toEqual({ host: '127.0.0.1', port: 9092 });
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
    expect(c.listener).toEqual({ host: '127.0.0.1', port: 19092 });
    expect(c.advertised).toEqual({ host: 'broker.example', port: 9092 });
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
      'advertised',
      'clusterId',
      'listener',
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
      new ConfigError('LISTENER_URL="localhost:9092" is not valid: expected tcp://HOST:PORT'),
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

  it('parses listener URLs', () => {
    expect(parseEndpointUrl('tcp://[::1]:9092')).toEqual({ host: '::1', port: 9092 });
    expect(parseEndpointUrl('tcp://host:99999')).toBeUndefined();
    expect(parseEndpointUrl('http://host:1')).toBeUndefined();
  });
});
