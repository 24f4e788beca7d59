// The network floor of the seed workload: a Node TCP server that does nothing but read
// length-prefixed requests of the seed's size and answer each with a small response, driven by a
// client process at the seed's request rate. Its CPU is what any Node broker pays per request for
// the socket work alone on this machine.
// Run: npx tsx bench/loopback-floor.bench.ts [requestsPerSec=3300] [requestBytes=2200] [seconds=8]
// Prints one JSON line: { requestsPerSec, requestBytes, serverCpuPercent }.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import { clockTicks, parseCpuSeconds } from './proc';

const RESPONSE_BYTES = 64; // a Produce v9 response for one partition is about this size

function server(): void {
  const srv = net.createServer((s) => {
    s.setNoDelay(true);
    const response = Buffer.alloc(RESPONSE_BYTES, 1);
    response.writeInt32BE(RESPONSE_BYTES - 4, 0);
    let pending: Buffer = Buffer.alloc(0);
    s.on('data', (d: Buffer) => {
      pending = pending.length > 0 ? Buffer.concat([pending, d]) : d;
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        pending = pending.subarray(4 + pending.readInt32BE(0));
        s.write(response); // one write per response, as the broker answers each request
      }
    });
  });
  srv.listen(0, '127.0.0.1', () => process.send!((srv.address() as net.AddressInfo).port));
}

function client(port: number, perSec: number, requestBytes: number, seconds: number): void {
  const s = net.connect(port, '127.0.0.1');
  s.setNoDelay(true);
  s.on('data', () => {});
  const request = Buffer.alloc(requestBytes, 2);
  request.writeInt32BE(requestBytes - 4, 0);
  const total = perSec * seconds;
  const start = performance.now();
  let sent = 0;
  const tick = () => {
    const due = Math.min(total, Math.floor(((performance.now() - start) * perSec) / 1000));
    for (; sent < due; sent++) s.write(request);
    if (sent < total) setTimeout(tick, 1);
    else setTimeout(() => s.end(() => process.exit(0)), 200);
  };
  tick();
}

function main(): void {
  const perSec = Number(process.argv[2] ?? 3300);
  const requestBytes = Number(process.argv[3] ?? 2200);
  const seconds = Number(process.argv[4] ?? 8);
  const srv = fork(__filename, ['--server'], { execArgv: process.execArgv });
  srv.once('message', (port) => {
    const cpu = () => parseCpuSeconds(readFileSync(`/proc/${srv.pid}/stat`, 'utf8'), clockTicks());
    const c0 = cpu();
    const t0 = Date.now();
    const cl = fork(__filename, ['--client', String(port), String(perSec), String(requestBytes), String(seconds)], {
      execArgv: process.execArgv,
    });
    cl.on('exit', () => {
      const serverCpuPercent = ((cpu() - c0) / ((Date.now() - t0) / 1000)) * 100;
      process.stdout.write(`${JSON.stringify({ requestsPerSec: perSec, requestBytes, serverCpuPercent })}\n`);
      srv.kill();
    });
  });
}

const [role, ...rest] = process.argv.slice(2);
if (role === '--server') server();
else if (role === '--client') client(Number(rest[0]), Number(rest[1]), Number(rest[2]), Number(rest[3]));
else main();
