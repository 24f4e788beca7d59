// Which quota applies to a (user, client id), in Kafka's order (ClientQuotaManager's doc and
// DefaultQuotaCallback), which usage it shares, and the per-IP connection rate (KIP-612).
import { ClientQuotaManager } from '../../../src/server/quotas/client-quota-manager';
import { IpConnectionRate } from '../../../src/server/quotas/ip-connection-rate';
import type { ClientQuotaEntry } from '../../../src/storage/storage';

const window = { samples: 11, windowMs: 1000 };
const q = (entity: ClientQuotaEntry['entity'], producer_byte_rate: number): ClientQuotaEntry => ({
  entity,
  values: { producer_byte_rate },
});

describe('ClientQuotaManager resolution order', () => {
  const all = [
    q({ user: 'alice', 'client-id': 'app' }, 1),
    q({ user: 'alice', 'client-id': null }, 2),
    q({ user: 'alice' }, 3),
    q({ user: null, 'client-id': 'app' }, 4),
    q({ user: null, 'client-id': null }, 5),
    q({ user: null }, 6),
    q({ 'client-id': 'app' }, 7),
    q({ 'client-id': null }, 8),
  ];

  it('takes the most specific entity set, level by level as each more specific one goes', () => {
    for (let level = 0; level < all.length; level++) {
      const m = new ClientQuotaManager('producer_byte_rate', window);
      m.update(all.slice(level));
      expect([level, m.quotaFor('alice', 'app')]).toEqual([level, level + 1]);
    }
  });

  it('applies no quota when none matches, and is off with no entity setting its key', () => {
    const m = new ClientQuotaManager('producer_byte_rate', window);
    m.update([q({ user: 'bob' }, 10), { entity: { 'client-id': 'x' }, values: { consumer_byte_rate: 5 } }]);
    expect(m.enabled).toBe(true);
    expect(m.quotaFor('alice', 'x')).toBeUndefined();
    expect(m.recordAndGetThrottleTimeMs('alice', 'x', 1e9, 0)).toBe(0);
    m.update([{ entity: { 'client-id': 'x' }, values: { consumer_byte_rate: 5 } }]);
    expect(m.enabled).toBe(false);
  });

  it('ignores ip entities', () => {
    const m = new ClientQuotaManager('producer_byte_rate', window);
    m.update([{ entity: { ip: null }, values: { producer_byte_rate: 1 } }]);
    expect(m.enabled).toBe(false);
  });
});

describe('ClientQuotaManager usage', () => {
  it('shares a user quota among the user’s client ids, and a client-id quota among users', () => {
    const m = new ClientQuotaManager('producer_byte_rate', window);
    m.update([q({ user: 'alice' }, 100), q({ 'client-id': 'shared' }, 100)]);
    // 100 B/s over the 10 s a fresh sensor counts: 1000 bytes are within, more are not.
    expect(m.recordAndGetThrottleTimeMs('alice', 'one', 600, 0)).toBe(0);
    expect(m.recordAndGetThrottleTimeMs('alice', 'two', 600, 0)).toBe(2000); // 1200/10 s = 120 B/s: (120-100)/100*10 s
    expect(m.recordAndGetThrottleTimeMs('bob', 'shared', 600, 0)).toBe(0);
    expect(m.recordAndGetThrottleTimeMs('carol', 'shared', 600, 0)).toBe(2000);
  });

  it('gives each user its own usage under the default user quota', () => {
    const m = new ClientQuotaManager('producer_byte_rate', window);
    m.update([q({ user: null }, 100)]);
    expect(m.recordAndGetThrottleTimeMs('alice', 'c', 1000, 0)).toBe(0);
    expect(m.recordAndGetThrottleTimeMs('bob', 'c', 1000, 0)).toBe(0);
    expect(m.recordAndGetThrottleTimeMs('bob', 'c', 1000, 0)).toBe(10_000);
  });

  it('unrecords, caps the throttle when asked (request quotas), and sizes the window maximum', () => {
    const m = new ClientQuotaManager('request_percentage', window, 1000);
    m.update([{ entity: { 'client-id': 'c' }, values: { request_percentage: 10 } }]);
    expect(m.recordAndGetThrottleTimeMs('u', 'c', 500, 0)).toBe(1000); // 50 %/s vs 10: 40 s, capped at one window
    m.unrecord('u', 'c', 500, 0);
    expect(m.recordAndGetThrottleTimeMs('u', 'c', 100, 0)).toBe(0);
    expect(m.maxValueInQuotaWindow('u', 'c')).toBe(10 * 10);
    expect(m.maxValueInQuotaWindow('u', 'other')).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('IpConnectionRate (KIP-612)', () => {
  it('uses the IP’s own rate, else the default IP entity’s, and does not count refused connections', () => {
    const r = new IpConnectionRate({ samples: 2, windowMs: 1000 });
    r.update([
      { entity: { ip: null }, values: { connection_creation_rate: 2 } },
      { entity: { ip: '10.0.0.9' }, values: { connection_creation_rate: 100 } },
    ]);
    expect(r.rateFor('10.0.0.9')).toBe(100);
    expect(r.rateFor('10.0.0.1')).toBe(2);
    // A fresh sensor spans one window (samples-1 = 1 s): 2 connections are within 2/s.
    expect(r.recordAndGetThrottleTimeMs('10.0.0.1', 0)).toBe(0);
    expect(r.recordAndGetThrottleTimeMs('10.0.0.1', 0)).toBe(0);
    expect(r.recordAndGetThrottleTimeMs('10.0.0.1', 0)).toBe(500); // 3/s: (3-2)/2 * 1 s
    expect(r.recordAndGetThrottleTimeMs('10.0.0.1', 0)).toBe(500); // the refused one was taken back
    for (let i = 0; i < 50; i++) expect(r.recordAndGetThrottleTimeMs('10.0.0.9', 0)).toBe(0);
  });

  it('is off without ip quotas', () => {
    const r = new IpConnectionRate({ samples: 2, windowMs: 1000 });
    r.update([q({ user: null }, 5)]);
    expect(r.enabled).toBe(false);
    expect(r.recordAndGetThrottleTimeMs('1.2.3.4', 0)).toBe(0);
  });
});
