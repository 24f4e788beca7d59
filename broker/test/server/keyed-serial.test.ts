import { KeyedSerial } from '../../src/keyed-serial';

/** A task that runs until its gate is opened, recording its start and end. */
function gated(log: string[], name: string) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const task = async () => {
    log.push(`start ${name}`);
    await gate;
    log.push(`end ${name}`);
    return name;
  };
  return { task, open };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('KeyedSerial', () => {
  it('runs the tasks of one key in arrival order, one at a time; other keys do not wait', async () => {
    const serial = new KeyedSerial<string>();
    const log: string[] = [];
    const a1 = gated(log, 'a1');
    const a2 = gated(log, 'a2');
    const b1 = gated(log, 'b1');
    const r1 = serial.run('a', a1.task);
    const r2 = serial.run('a', a2.task);
    const r3 = serial.run('b', b1.task);
    await turn();
    expect(log).toEqual(['start a1', 'start b1']);
    b1.open();
    expect(await r3).toBe('b1');
    a2.open(); // a2 has not started: it waits for a1 whatever its own gate says
    await turn();
    expect(log).toEqual(['start a1', 'start b1', 'end b1']);
    a1.open();
    expect(await Promise.all([r1, r2])).toEqual(['a1', 'a2']);
    expect(log).toEqual(['start a1', 'start b1', 'end b1', 'end a1', 'start a2', 'end a2']);
    await turn();
    expect(serial.size).toBe(0); // nothing kept for idle keys
  });

  it("hands a task's failure to its caller and runs the next task of the key anyway", async () => {
    const serial = new KeyedSerial<string>();
    const failed = serial.run('k', () => {
      throw new Error('boom');
    });
    const next = serial.run('k', async () => 'after');
    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('after');
  });

  it('starts a task at once when its key is idle (no turn of the event loop lost)', () => {
    const serial = new KeyedSerial<string>();
    let ran = false;
    void serial.run('k', () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });
});
