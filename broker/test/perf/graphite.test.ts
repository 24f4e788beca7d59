import * as net from 'node:net';
import { GraphiteSender, graphiteLines, sanitizePrefix } from '../../src/perf/graphite';

describe('graphite plaintext protocol', () => {
  it('writes "<path> <value> <unix seconds>" lines under the prefix', () => {
    expect(
      graphiteLines(
        'minnow.perf',
        { rate: 7000.4, errorRate: 0, bytesPerSec: 7168409.6, p99Ms: 1.23456 },
        1_700_000_000_999,
      ),
    ).toBe(
      'minnow.perf.rate 7000.4 1700000000\n' +
        'minnow.perf.error_rate 0 1700000000\n' +
        'minnow.perf.bytes_per_sec 7168409.6 1700000000\n' +
        'minnow.perf.p99_ms 1.235 1700000000\n',
    );
  });

  it('keeps path segments to safe characters and never writes NaN', () => {
    expect(sanitizePrefix('lab.host name.x:1..y')).toBe('lab.host_name.x_1.y');
    expect(graphiteLines('p', { rate: NaN, errorRate: Infinity, bytesPerSec: 0, p99Ms: 0 }, 0).split('\n')[0]).toBe(
      'p.rate 0 0',
    );
  });

  it('sends to a server', async () => {
    let received = '';
    const server = net.createServer((s) => s.on('data', (d) => (received += d)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const sender = new GraphiteSender('127.0.0.1', (server.address() as net.AddressInfo).port, () => {});
    sender.send('a.b 1 2\n');
    await sender.close();
    for (let i = 0; i < 50 && received === ''; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise<void>((r) => server.close(() => r()));
    expect(received).toBe('a.b 1 2\n');
  });
});
