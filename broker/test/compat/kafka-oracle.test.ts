// The Kafka launcher's pure parts (no JVM here): cluster ids and the generated server.properties.
import { freePort, randomClusterId, serverProperties } from '../../tools/kafka-oracle/kafka';

describe('kafka-oracle launcher', () => {
  it('makes cluster ids the way kafka-storage random-uuid prints them: 22 URL-safe base64 characters', () => {
    const ids = new Set(Array.from({ length: 20 }, randomClusterId));
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('never makes an id that starts with "-" or a reserved one, as Kafka\'s Uuid.randomUuid (a leading "-" reads as a flag)', () => {
    const dash = Buffer.alloc(16, 0xf8); // base64url of 0xf8... starts with '-'
    const zero = Buffer.alloc(16);
    const plain = Buffer.alloc(16, 0x41);
    const outputs = [dash, zero, dash, plain];
    const id = randomClusterId(() => outputs.shift()!);
    expect(dash.toString('base64url').startsWith('-')).toBe(true);
    expect(id).toBe(plain.toString('base64url'));
    expect(outputs).toHaveLength(0);
  });

  it('writes a one-node KRaft config on 127.0.0.1 with single-replica internal topics', () => {
    const text = serverProperties({
      dataDir: '/tmp/k',
      port: 19092,
      controllerPort: 19093,
      extra: { 'num.partitions': '3' },
    });
    const props = Object.fromEntries(
      text
        .trim()
        .split('\n')
        .map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]),
    );
    expect(props).toEqual(
      expect.objectContaining({
        'process.roles': 'broker,controller',
        'node.id': '1',
        listeners: 'PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093',
        'advertised.listeners': 'PLAINTEXT://127.0.0.1:19092',
        'controller.quorum.bootstrap.servers': '127.0.0.1:19093',
        'log.dirs': '/tmp/k/logs',
        'offsets.topic.replication.factor': '1',
        'transaction.state.log.replication.factor': '1',
        'num.partitions': '3',
      }),
    );
    expect(props).not.toHaveProperty('group.initial.rebalance.delay.ms'); // left at Kafka's default
  });

  it('finds a free loopback port', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(65536);
  });
});
