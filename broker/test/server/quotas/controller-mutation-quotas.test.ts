// KIP-599 controller_mutation_rate (server/quotas/controller-mutation-quotas.ts): Kafka's token
// bucket (full at samples x window x rate, refilled at rate), the strict quota that refuses while
// the bucket is below zero and the permissive one that only throttles, resolved per entity.
import { ControllerMutationQuotas } from '../../../src/server/quotas/controller-mutation-quotas';
import type { ClientQuotaEntry } from '../../../src/storage/storage';

// Kafka's defaults: 11 one-second samples, so a rate of 2 partitions/s holds 22 tokens.
const WINDOW = { samples: 11, windowMs: 1000 };
const rate = (entity: ClientQuotaEntry['entity'], r: number): ClientQuotaEntry => ({
  entity,
  values: { controller_mutation_rate: r },
});

function quotas(...entries: ClientQuotaEntry[]) {
  const q = new ControllerMutationQuotas(WINDOW);
  q.update(entries);
  return q;
}

describe('controller_mutation_rate', () => {
  it('without a quota nothing is charged or throttled', () => {
    const q = quotas();
    expect(q.enabled).toBe(false);
    const quota = q.quotaFor('alice', 'app', true);
    for (let i = 0; i < 100; i++) expect(quota.record(1000, 0)).toBeUndefined();
    expect(quota.throttleTimeMs(0)).toBe(0);
  });

  it('strict: the burst passes, one request may overdraw it, then topics are refused until the bucket is back at zero', () => {
    const q = quotas(rate({ user: 'alice' }, 2));
    const quota = q.quotaFor('alice', 'app', true);
    expect(quota.record(20, 0)).toBeUndefined(); // 22 -> 2
    expect(quota.record(10, 0)).toBeUndefined(); // 2 -> -8: charged in full (Kafka checks before recording)
    const refused = quota.record(1, 0);
    expect(refused).toEqual({
      throttleMs: 4000,
      message: expect.stringMatching(
        /^The throttling quota has been exceeded\. \(controller_mutation_rate 2 partitions\/s for user "alice"/,
      ),
    });
    expect(quota.throttleTimeMs(0)).toBe(4000);
    expect(quota.throttleTimeMs(1500)).toBe(2500); // less the time since it was measured
    // 4 s later the bucket is back at zero: the next topic is charged again.
    const later = q.quotaFor('alice', 'app', true);
    expect(later.record(1, 3999)).toMatchObject({ throttleMs: 1 });
    expect(later.record(1, 4000)).toBeUndefined();
  });

  it('permissive (old versions): always charged and done, the response throttled once below zero', () => {
    const q = quotas(rate({ user: 'alice' }, 2));
    const quota = q.quotaFor('alice', 'app', false);
    expect(quota.record(22, 0)).toBeUndefined();
    expect(quota.throttleTimeMs(0)).toBe(0);
    expect(quota.record(6, 0)).toBeUndefined(); // created anyway
    expect(quota.throttleTimeMs(0)).toBe(3000);
  });

  it("a user's quota is shared by its client ids; another user is not charged", () => {
    const q = quotas(rate({ user: null }, 1)); // the default user entity: each user its own bucket
    expect(q.quotaFor('alice', 'a', true).record(20, 0)).toBeUndefined();
    expect(q.quotaFor('alice', 'b', true).record(1, 0)).toMatchObject({ throttleMs: 9000 });
    expect(q.quotaFor('bob', 'a', true).record(1, 0)).toBeUndefined();
  });

  it('a client-id quota applies across users, and a more specific entity wins', () => {
    const q = quotas(rate({ 'client-id': 'loader' }, 1), rate({ user: 'ops', 'client-id': 'loader' }, 100));
    expect(q.quotaFor('alice', 'loader', true).record(12, 0)).toBeUndefined();
    expect(q.quotaFor('bob', 'loader', true).record(1, 0)).toMatchObject({ throttleMs: 1000 });
    expect(q.quotaFor('ops', 'loader', true).record(500, 0)).toBeUndefined();
  });
});
