// Per-broker dynamic configs minnow has no use for (issue 30 item 4): Kafka accepts its dynamic
// broker configs (kafka-configs --entity-type brokers --entity-name 1 --add-config
// log.cleaner.threads=2; librdkafka's test 0081 sets sasl.kerberos.min.time.before.relogin) and
// custom names; it refuses its static ones. minnow now does the same: stores them, describes them
// as DYNAMIC_BROKER_CONFIG with Kafka's default as synonym, says in the documentation field that
// they change nothing here (inert-broker-configs.ts), and hides custom values as Kafka does. Before,
// every name minnow did not define was INVALID_REQUEST. The expected kafka-configs output below is
// what Kafka 4.1.1 printed for the same commands (the oracle, tools/kafka-oracle).
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ErrorCode } from '../../src/protocol/error-codes';
import type { RunningBroker } from '../../src/server/broker';
import { ConfigSource } from '../../src/server/broker-configs';
import { describeWithTools } from '../support/external-tools';
import { kafkaCli, kafkaJars } from '../support/kafka-cli';
import { startTestBroker, storageUrlFor, tempDir } from './helpers';

const BROKER = 4;
const SET = 0;

describe("Kafka's dynamic broker configs", () => {
  let broker: RunningBroker;
  let conn: KafkaConnection;
  const tmp = tempDir();

  beforeAll(async () => {
    broker = await startTestBroker(storageUrlFor('sqlite', tmp.dir));
    conn = await KafkaConnection.connect('127.0.0.1', broker.port);
  });
  afterAll(async () => {
    conn.close();
    await broker.stop();
    tmp.cleanup();
  });

  const set = async (resourceName: string, configs: Record<string, string>) => {
    const res = await conn.send(ApiKey.IncrementalAlterConfigs, 1, {
      resources: [
        {
          resourceType: BROKER,
          resourceName,
          configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: SET, value })),
        },
      ],
      validateOnly: false,
    });
    const r = res.responses[0];
    return { errorCode: r.errorCode, errorMessage: r.errorMessage };
  };
  const describeBroker = async (keys: string[] | null) => {
    const res = await conn.send(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType: BROKER, resourceName: '1', configurationKeys: keys }],
      includeSynonyms: true,
      includeDocumentation: true,
    });
    return res.results[0].configs as {
      name: string;
      value: string | null;
      readOnly: boolean;
      configSource: number;
      isSensitive: boolean;
      documentation: string | null;
      synonyms: { name: string; value: string | null; source: number }[];
    }[];
  };

  it('accepts, stores and describes the ones minnow does not use, saying they change nothing', async () => {
    expect(await set('1', { 'log.cleaner.threads': '2', 'sasl.kerberos.min.time.before.relogin': '58000' })).toEqual({
      errorCode: ErrorCode.NONE,
      errorMessage: null,
    });
    expect(await broker.context.storage.brokerConfigs('1')).toEqual({
      'log.cleaner.threads': '2',
      'sasl.kerberos.min.time.before.relogin': '58000',
    });
    const [threads] = await describeBroker(['log.cleaner.threads']);
    expect(threads).toMatchObject({
      name: 'log.cleaner.threads',
      value: '2',
      readOnly: false,
      configSource: ConfigSource.DYNAMIC_BROKER_CONFIG,
      isSensitive: false,
      synonyms: [
        { name: 'log.cleaner.threads', value: '2', source: ConfigSource.DYNAMIC_BROKER_CONFIG },
        { name: 'log.cleaner.threads', value: '1', source: ConfigSource.DEFAULT_CONFIG },
      ],
    });
    expect(threads!.documentation).toContain('changes nothing');
    // Unset inert configs are listed only when named: the full listing is what minnow has.
    const all = (await describeBroker(null)).map((e) => e.name);
    expect(all).toContain('log.cleaner.threads');
    expect(all).not.toContain('num.io.threads');
    expect(await describeBroker(['num.io.threads'])).toMatchObject([
      { name: 'num.io.threads', value: '8', configSource: ConfigSource.DEFAULT_CONFIG },
    ]);
  });

  it('checks the type of a Kafka config, and keeps a custom one without showing its value', async () => {
    expect(await set('', { 'num.io.threads': 'many' })).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Invalid value many for configuration num.io.threads: Not a number of type INT',
    });
    expect(await set('', { 'my.plugin.setting': 'secret' })).toMatchObject({ errorCode: ErrorCode.NONE });
    expect(await broker.context.storage.brokerConfigs('')).toEqual({ 'my.plugin.setting': 'secret' });
    expect(await describeBroker(['my.plugin.setting'])).toMatchObject([
      {
        value: null,
        isSensitive: true,
        configSource: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
        synonyms: [{ name: 'my.plugin.setting', value: null, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG }],
      },
    ]);
  });

  it("refuses Kafka's static configs as Kafka does, and says where minnow takes its start-up ones", async () => {
    expect(await set('1', { 'log.dirs': '/tmp/x' })).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: 'Cannot update these configs dynamically: Set(log.dirs)',
    });
    expect(await set('1', { 'max.connections': '100' })).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage:
        'Cannot update these configs dynamically: Set(max.connections); minnow reads maxConnections at start-up only (Kafka at runtime): change the setting and restart',
    });
  });

  describeWithTools('java', 'mvn')("Kafka's kafka-configs", () => {
    beforeAll(() => kafkaJars(), 300_000);
    const tool = (...args: string[]) =>
      kafkaCli('kafka-configs', [
        '--bootstrap-server',
        `127.0.0.1:${broker.port}`,
        '--entity-type',
        'brokers',
        '--entity-name',
        '1',
        ...args,
      ]);

    it('alters and describes them as on Kafka', async () => {
      const alter = await tool('--alter', '--add-config', 'log.cleaner.threads=3,foo.bar=1');
      expect(alter.err).toBe('');
      expect(alter.out.trim()).toBe('Completed updating config for broker 1.');
      const describe = await tool('--describe');
      expect(describe.code).toBe(0);
      expect(describe.out.trim().split('\n')).toEqual([
        'Dynamic configs for broker 1 are:',
        '  foo.bar=null sensitive=true synonyms={DYNAMIC_BROKER_CONFIG:foo.bar=null}',
        '  log.cleaner.threads=3 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=3, DEFAULT_CONFIG:log.cleaner.threads=1}',
        '  sasl.kerberos.min.time.before.relogin=58000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:sasl.kerberos.min.time.before.relogin=58000, DEFAULT_CONFIG:sasl.kerberos.min.time.before.relogin=60000}',
      ]);
    }, 60_000);
  });
});
