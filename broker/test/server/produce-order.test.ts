// A connection's Produce requests enter the append queue in arrival order (src/server/produce-order.ts),
// and a request with nobody before it does not wait (no promise, no await).
import { ProduceOrder } from '../../src/server/produce-order';

const settled = async (p: Promise<void> | undefined): Promise<boolean> => {
  if (p === undefined) return true;
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
};

describe('ProduceOrder', () => {
  it('a turn with nobody before it has nothing to wait for', () => {
    const order = new ProduceOrder();
    const a = order.take();
    expect(a.ready).toBeUndefined();
    a.release();
    expect(order.take().ready).toBeUndefined(); // the one before was released
  });

  it('each turn waits for the one before it to be released, in order', async () => {
    const order = new ProduceOrder();
    const a = order.take();
    const b = order.take();
    const c = order.take();
    expect(await settled(b.ready)).toBe(false);
    expect(await settled(c.ready)).toBe(false);
    a.release();
    expect(await settled(b.ready)).toBe(true);
    expect(await settled(c.ready)).toBe(false);
    b.release();
    b.release(); // twice is once
    expect(await settled(c.ready)).toBe(true);
    c.release();
    expect(order.take().ready).toBeUndefined();
  });

  it('a turn taken while the last one is out waits for it', async () => {
    const order = new ProduceOrder();
    const a = order.take();
    a.release();
    const b = order.take();
    const c = order.take();
    expect(b.ready).toBeUndefined();
    expect(await settled(c.ready)).toBe(false);
    b.release();
    expect(await settled(c.ready)).toBe(true);
  });
});
