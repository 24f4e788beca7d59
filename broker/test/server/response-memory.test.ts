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
});
