// The harness's helpers (broker/bench): /proc parsing, CPU profile summary, the SVG chart.
import { summarizeProfile } from '../../bench/cpu-profile';
import { latencyChart } from '../../bench/plot';
import { parseCpuSeconds, parseStatusKb } from '../../bench/proc';

describe('/proc parsing', () => {
  it('reads utime + stime after the command name, even one with spaces and parentheses', () => {
    const stat =
      '4229 (node (my broker)) S 1 4229 4229 0 -1 4194560 1234 0 0 0 250 50 0 0 20 0 11 0 100 1000000 5000 18446744073709551615';
    expect(parseCpuSeconds(stat, 100)).toBe(3);
  });

  it('reads kB lines of /proc/PID/status as bytes', () => {
    const status =
      'Name:\tnode\nVmHWM:\t  122384 kB\nVmRSS:\t  120436 kB\nRssAnon:\t   80000 kB\nRssFile:\t   40436 kB\n';
    expect(parseStatusKb(status, 'VmRSS')).toBe(120436 * 1024);
    expect(parseStatusKb(status, 'VmHWM')).toBe(122384 * 1024);
    expect(parseStatusKb(status, 'RssFile')).toBe(40436 * 1024);
    expect(parseStatusKb('', 'VmRSS')).toBeNaN();
  });
});

describe('summarizeProfile', () => {
  it('sums self time per function, leaves idle out of the shares', () => {
    const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 3, 4] },
        { id: 2, callFrame: frame('(idle)') },
        { id: 3, callFrame: frame('commit', 'file:///x/transaction.js', 51) },
        { id: 4, callFrame: frame('writeBuffer') },
      ],
      samples: [2, 3, 3, 4, 2],
      timeDeltas: [1000, 2000, 2000, 1000, 5000],
      startTime: 0,
      endTime: 11000,
    };
    const s = summarizeProfile(profile);
    expect(s.totalMs).toBe(11);
    expect(s.idleMs).toBe(6);
    expect(s.busyMs).toBe(5);
    expect(s.top[0]).toEqual({ name: 'commit', where: 'transaction.js:52', selfMs: 4, percent: 80 });
    expect(s.top[1]).toEqual({ name: 'writeBuffer', where: '(native)', selfMs: 1, percent: 20 });
  });
});

describe('latencyChart', () => {
  it('draws one line per percentile on log axes, with the offered loads as labels', () => {
    const svg = latencyChart(
      [1000, 10_000, 100_000].map((offered, i) => ({
        offered,
        achieved: offered * 0.9,
        p50Ms: 1 + i,
        p95Ms: 2 + i,
        p99Ms: 5 + i * 10,
        p999Ms: 9 + i * 100,
      })),
      'title <x>',
    );
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<path /g)).toHaveLength(4);
    expect(svg).toContain('title &lt;x>');
    for (const label of ['>1k<', '>10k<', '>100k<', '>p99.9<']) expect(svg).toContain(label);
  });
});
