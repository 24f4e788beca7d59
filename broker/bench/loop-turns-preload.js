// Loaded into a broker child with `node --require` (bench/abuse.ts): how long the broker's event
// loop was held, and how much CPU the process used meanwhile. A 1 ms timer notes each gap between
// its runs longer than 5 ms; the CPU the process spent during a gap tells the broker's own work
// from time the machine did not give it (on a loaded machine, wall time alone mixes the two).
// SIGUSR2 starts the count over; at exit the figures go to $MINNOW_LOOP_TURNS_OUT as JSON.
// process.cpuUsage() counts every thread (GC helpers, the checkpointer): close, not exact.
'use strict';
const { writeFileSync } = require('node:fs');

const out = process.env.MINNOW_LOOP_TURNS_OUT;
let stats;
let since = performance.now();
const reset = () => {
  since = performance.now();
  stats = { gaps: 0, maxWallMs: 0, maxCpuMs: 0, cpuOver20Ms: 0, cpuOver50Ms: 0, wallOver50Ms: 0, top: [] };
};
reset();
let last = performance.now();
let lastCpu = process.cpuUsage();
setInterval(() => {
  const now = performance.now();
  const cpu = process.cpuUsage();
  const wallMs = now - last;
  if (wallMs > 5) {
    const cpuMs = (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000;
    stats.gaps++;
    stats.maxWallMs = Math.max(stats.maxWallMs, wallMs);
    stats.maxCpuMs = Math.max(stats.maxCpuMs, cpuMs);
    if (cpuMs > 20) stats.cpuOver20Ms++;
    if (cpuMs > 50) stats.cpuOver50Ms++;
    if (wallMs > 50) stats.wallOver50Ms++;
    // The five holds with the most CPU, with when they ended (ms since the count began).
    stats.top.push({ cpuMs: Math.round(cpuMs), wallMs: Math.round(wallMs), atMs: Math.round(now - since) });
    stats.top = stats.top.sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 5);
  }
  last = now;
  lastCpu = cpu;
}, 1).unref();
process.on('SIGUSR2', reset);
process.on('exit', () => {
  if (out) writeFileSync(out, JSON.stringify(stats));
});
