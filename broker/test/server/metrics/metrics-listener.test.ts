import { ConfigError, loadConfig } from '../../../src/server/config';
import { parseMetricsListener, sharesPort } from '../../../src/server/metrics/metrics-listener';

describe('MINNOW_METRICS_LISTENER', () => {
  it('is off by default', () => {
    expect(loadConfig({}).metricsListener).toBeUndefined();
    expect(loadConfig({ MINNOW_METRICS_LISTENER: '' }).metricsListener).toBeUndefined();
  });

  it('takes HOST:PORT from the environment or --metrics-listener', () => {
    expect(loadConfig({ MINNOW_METRICS_LISTENER: '0.0.0.0:9464' }).metricsListener).toEqual({
      host: '0.0.0.0',
      port: 9464,
    });
    expect(loadConfig({}, { 'metrics-listener': '127.0.0.1:9100' }).metricsListener).toEqual({
      host: '127.0.0.1',
      port: 9100,
    });
    expect(parseMetricsListener('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(parseMetricsListener('metrics.internal:9464')).toEqual({ host: 'metrics.internal', port: 9464 });
  });

  it.each(['9464', ':9464', '127.0.0.1', '127.0.0.1:99999', 'http://127.0.0.1:9464', '127.0.0.1:94a', 'a b:1'])(
    'refuses %j at start, naming the setting and the form',
    (value) => {
      expect(() => loadConfig({ MINNOW_METRICS_LISTENER: value })).toThrow(ConfigError);
      expect(() => loadConfig({ MINNOW_METRICS_LISTENER: value })).toThrow(
        `MINNOW_METRICS_LISTENER=${JSON.stringify(value)} is not valid: expected HOST:PORT`,
      );
    },
  );

  it("refuses a Kafka listener's port, wildcards included", () => {
    const env = { LISTENER_URL: 'tcp://127.0.0.1:9092,tls://0.0.0.0:9093', TLS_CERT_FILE: 'c', TLS_KEY_FILE: 'k' };
    expect(() => loadConfig({ ...env, MINNOW_METRICS_LISTENER: '127.0.0.1:9092' })).toThrow(
      'MINNOW_METRICS_LISTENER=127.0.0.1:9092 uses the port of the Kafka listener 127.0.0.1:9092',
    );
    expect(() => loadConfig({ ...env, MINNOW_METRICS_LISTENER: '10.0.0.5:9093' })).toThrow(/port of its own/);
    expect(() => loadConfig({ ...env, MINNOW_METRICS_LISTENER: '0.0.0.0:9092' })).toThrow(ConfigError);
    expect(loadConfig({ ...env, MINNOW_METRICS_LISTENER: '10.0.0.5:9092' }).metricsListener?.port).toBe(9092);
    expect(loadConfig({ ...env, MINNOW_METRICS_LISTENER: '127.0.0.1:9464' }).metricsListener?.port).toBe(9464);
  });

  it('lets port 0 (any free port) sit beside port 0 listeners', () => {
    expect(sharesPort({ host: '127.0.0.1', port: 0 }, { host: '127.0.0.1', port: 0 })).toBe(false);
  });
});
