import { ResponseHold, ResponseMemory } from '../../src/server/response-memory';

describe('ResponseMemory', () => {
  it('gives what is free, counts reads past it, and gets everything back', () => {
    const memory = new ResponseMemory(100);
    const a = new ResponseHold(memory);
    const b = new ResponseHold(memory);
    expect(a.take(60)).toBe(60);
    expect(b.take(60)).toBe(40); // only 40 free
    expect(b.take(10)).toBe(0);
    a.giveBack(20); // the read used 40 of its 60
    expect(memory.usedBytes).toBe(80);
    b.add(5); // KIP-74's first batch ran past what it got
    expect(memory.usedBytes).toBe(85);
    a.releaseAll();
    a.releaseAll(); // once only
    expect(memory.usedBytes).toBe(45);
    b.giveBack(1000); // never more than it holds
    expect(memory.usedBytes).toBe(0);
    expect(b.heldBytes).toBe(0);
  });

  it('keeps what a read kept of what it took: the rest back, a first batch past it counted', () => {
    const memory = new ResponseMemory(100);
    const a = new ResponseHold(memory);
    a.keep(a.take(50), 30); // a read kept 30 of its 50
    expect(memory.usedBytes).toBe(30);
    a.keep(a.take(10), 25); // KIP-74: a whole first batch of 25 on 10 taken
    expect([memory.usedBytes, a.heldBytes]).toEqual([55, 55]);
    a.releaseAll();
    expect(memory.usedBytes).toBe(0);
  });
});
