import { runInNewContext } from 'node:vm';
import { createLogger, WarningLimiter } from '../src/logger';

describe('WarningLimiter', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const setup = () => {
    const lines: { level: string; msg: string; suppressed?: number }[] = [];
    const limiter = new WarningLimiter(
      createLogger('info', (l) => lines.push(JSON.parse(l))),
      10_000,
    );
    return { lines, limiter };
  };

  it('logs the first of a kind, then at most one line per interval counting the others', () => {
    const { lines, limiter } = setup();
    for (let i = 0; i < 1000; i++) limiter.warn('closing connection: malformed request', { i });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'closing connection: malformed request', i: 0 }),
    ]);
    jest.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      level: 'warn',
      msg: 'closing connection: malformed request (999 more like this suppressed)',
      suppressed: 999,
    });
    // The flood goes on: still one line per interval.
    for (let i = 0; i < 500; i++) limiter.warn('closing connection: malformed request');
    jest.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatchObject({ suppressed: 500 });
    // Quiet for an interval: the next one is logged at once again.
    jest.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(3);
    limiter.warn('closing connection: malformed request', { again: true });
    expect(lines[3]).toMatchObject({ msg: 'closing connection: malformed request', again: true });
  });

  it('counts each kind apart, keeps the level, and flush() reports what is pending', () => {
    const { lines, limiter } = setup();
    limiter.warn('a');
    limiter.warn('a');
    limiter.log('error', 'b');
    limiter.log('error', 'b');
    limiter.log('error', 'b');
    limiter.warn('same text, other kind', {}, 'k1');
    limiter.warn('same text, other kind', {}, 'k2');
    expect(lines.map((l) => l.msg)).toEqual(['a', 'b', 'same text, other kind', 'same text, other kind']);
    limiter.flush();
    expect(lines.slice(4)).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'a (1 more like this suppressed)' }),
      expect.objectContaining({ level: 'error', msg: 'b (2 more like this suppressed)' }),
    ]);
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('createLogger', () => {
  it('prints an error with its name and message, also one made in another realm', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('info', (l) => lines.push(JSON.parse(l)));
    logger.error('request failed', { err: new RangeError('here') });
    logger.error('request failed', { err: runInNewContext('new TypeError("elsewhere")') });
    expect(lines.map((l) => l.err)).toEqual([
      { name: 'RangeError', message: 'here' },
      { name: 'TypeError', message: 'elsewhere' },
    ]);
  });
});
