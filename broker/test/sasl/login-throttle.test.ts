// What a failed login costs (server/sasl/login-throttle.ts): the delay of the failing (address,
// user) grows, other users and a success are not slowed, many user names from one address grow
// it too, failures are forgotten, the memory is bounded, and the unauthenticated slots per address.
import { FORGET_AFTER_MS, LoginThrottle, MAX_REMEMBERED } from '../../src/server/sasl/login-throttle';

const throttle = (over: Partial<ConstructorParameters<typeof LoginThrottle>[0]> = {}) =>
  new LoginThrottle({ baseDelayMs: 100, maxDelayMs: 5_000, maxUnauthenticatedPerAddress: 3, ...over });

describe('LoginThrottle delays', () => {
  it("doubles the failing pair's delay up to the maximum; other users and addresses start at the base", () => {
    const t = throttle();
    const delays = Array.from({ length: 8 }, () => t.failed('10.0.0.1', 'alice', 0));
    expect(delays).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);
    expect(t.failed('10.0.0.1', 'bob', 0)).toBe(100);
    expect(t.failed('10.0.0.2', 'alice', 0)).toBe(100);
    expect(t.failedLogins).toBe(10);
  });

  it("a success forgets the pair's failures", () => {
    const t = throttle();
    for (let i = 0; i < 5; i++) t.failed('10.0.0.1', 'alice', 0);
    t.succeeded('10.0.0.1', 'alice');
    expect(t.failed('10.0.0.1', 'alice', 0)).toBe(100);
  });

  it('failures under many user names from one address double the delay once per 10', () => {
    const t = throttle();
    const delays = Array.from({ length: 31 }, (_, i) => t.failed('10.0.0.1', `user${i}`, 0));
    expect(delays.slice(0, 10)).toEqual(Array(10).fill(100));
    expect(delays[10]).toBe(200);
    expect(delays[20]).toBe(400);
    expect(delays[30]).toBe(800);
  });

  it('forgets failures FORGET_AFTER_MS after the last one', () => {
    const t = throttle();
    for (let i = 0; i < 5; i++) t.failed('10.0.0.1', 'alice', i);
    expect(t.failuresOf('10.0.0.1', 'alice', 4 + FORGET_AFTER_MS - 1)).toBe(5);
    expect(t.failed('10.0.0.1', 'alice', 4 + FORGET_AFTER_MS)).toBe(100);
  });

  it('CONNECTION_FAILED_AUTHENTICATION_DELAY_MS=0: no delay at all', () => {
    const t = throttle({ baseDelayMs: 0 });
    for (let i = 0; i < 50; i++) expect(t.failed('10.0.0.1', 'alice', 0)).toBe(0);
  });

  it(`remembers at most ${MAX_REMEMBERED} pairs and addresses, the least recently failed going first`, () => {
    const t = throttle();
    t.failed('10.9.9.9', 'kept', 0);
    for (let i = 0; i < 25_000; i++) {
      if (i % 1000 === 0) t.failed('10.9.9.9', 'kept', 0); // failing again keeps it
      t.failed(`10.0.${i >> 8}.${i & 255}`, 'alice', 0);
    }
    expect(t.remembered).toEqual({ pairs: MAX_REMEMBERED, addresses: MAX_REMEMBERED });
    expect(t.failuresOf('10.0.0.0', 'alice', 0)).toBe(0);
    expect(t.failuresOf('10.9.9.9', 'kept', 0)).toBe(26);
  });
});

describe('LoginThrottle unauthenticated slots', () => {
  it('refuses (and counts) past the maximum per address, and frees on release', () => {
    const t = throttle();
    expect([1, 2, 3, 4].map(() => t.tryOpen('10.0.0.1'))).toEqual([true, true, true, false]);
    expect(t.tryOpen('10.0.0.2')).toBe(true);
    expect(t.refusedConnections).toBe(1);
    t.release('10.0.0.1');
    expect(t.tryOpen('10.0.0.1')).toBe(true);
    for (let i = 0; i < 3; i++) t.release('10.0.0.1');
    t.release('10.0.0.1'); // one too many does not go negative
    expect(t.unauthenticatedFrom('10.0.0.1')).toBe(0);
  });
});
