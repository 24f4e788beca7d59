// Several listeners (LISTENER_URL is a list): each answers Metadata, FindCoordinator and
// DescribeCluster with its own advertised address, as Kafka answers with the endpoints of the
// listener a request came in on; a client bootstrapped on either works through it.
import { Kafka, logLevel } from 'kafkajs';
import { RunningBroker } from '../../src/server/broker';
import { describeWithTools } from '../support/external-tools';
import { consumeValues, run, startTestBroker } from './helpers';

describe('two listeners', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await startTestBroker('memory://', {
      config: {
        listeners: [
          { host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' },
          { host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' },
        ],
        // The group forms at once: it has one member (it waited the 3 s
        // group.initial.rebalance.delay.ms for no one).
        groupInitialRebalanceDelayMs: 0,
      },
    });
  });
  afterAll(() => broker?.stop());

  it('binds both, named PLAINTEXT and PLAINTEXT_2, each advertising itself', () => {
    expect(broker.listeners.map((l) => l.name)).toEqual(['PLAINTEXT', 'PLAINTEXT_2']);
    const [a, b] = broker.listeners;
    expect(a!.port).toBe(broker.port);
    expect(b!.port).not.toBe(a!.port);
    expect(a!.advertised).toEqual({ host: '127.0.0.1', port: a!.port });
    expect(b!.advertised).toEqual({ host: '127.0.0.1', port: b!.port });
  });

  it('kafkajs through the second listener is told the second address, and works', async () => {
    const port = broker.listeners[1]!.port;
    const kafka = new Kafka({ brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const cluster = await admin.describeCluster();
      expect(cluster.brokers).toEqual([{ nodeId: expect.any(Number), host: '127.0.0.1', port }]);
      await admin.createTopics({ topics: [{ topic: 'two-listeners', numPartitions: 1 }] });
    } finally {
      await admin.disconnect();
    }
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'two-listeners', messages: [{ value: 'via-second' }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: 'two-listeners-group' });
    await consumer.connect();
    const seen = await consumeValues(consumer, 'two-listeners', 1);
    expect(seen).toEqual(['via-second']);
  }, 40_000);
});

describeWithTools('kcat')('two listeners, seen by kcat', () => {
  let broker: RunningBroker;
  beforeAll(async () => {
    broker = await startTestBroker('memory://', {
      config: {
        listeners: [
          { host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' },
          { host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' },
        ],
      },
    });
  });
  afterAll(() => broker?.stop());

  it('Metadata lists the address of the listener asked', async () => {
    for (const l of broker.listeners) {
      const r = await run('kcat', ['-b', `127.0.0.1:${l.port}`, '-L', '-J'], { timeoutMs: 15_000 });
      expect(r.code).toBe(0);
      const md = JSON.parse(r.stdout);
      expect(md.brokers.map((b: { name: string }) => b.name)).toEqual([`127.0.0.1:${l.port}`]);
    }
  });
});
