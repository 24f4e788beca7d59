// What SASL costs the broker: logins per second per mechanism and the broker's CPU per login (a
// PLAIN login costs the broker one PBKDF2 of 4096 iterations, in libuv's thread pool, since it
// checks against the stored SCRAM keys; a SCRAM login costs it a few HMACs, the client derives),
// and its peak RSS under a flood of failed logins from many connections, each under its own user
// name from one address (their delays grow once per 10 failures of the address, 100 ms to 5 s:
// server/sasl/login-throttle.ts; 300 failures over 50 connections took 28 s, about 11 a second).
// `minnow serve` in a child process (its CPU from /proc/<pid>/stat, RSS from /proc/<pid>/status).
// Run: npx tsx bench/sasl-login.bench.ts [logins=300] [flood=2000]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KafkaConnection } from '../src/client/connection';
import { credentialFromPassword, SCRAM_MECHANISM_NAMES } from '../src/sasl/scram-crypto';
import { SqliteStorage } from '../src/storage/sqlite/sqlite-storage';
import { startChildBroker } from '../test/integration/serve-child';

const LOGINS = Number(process.argv[2] ?? 300);
const FLOOD = Number(process.argv[3] ?? 2000);
const CONCURRENCY = 50;

function cpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-sasl-bench-'));
  const db = path.join(dir, 'm.db');
  const s = new SqliteStorage(db);
  const creds = [];
  for (const mechanism of SCRAM_MECHANISM_NAMES)
    creds.push({ user: 'bench', mechanism, ...(await credentialFromPassword(mechanism, 'bench-pw')) });
  s.alterScramCredentials(creds, []);
  s.close();
  const broker = await startChildBroker(['--listener', 'sasl+tcp://127.0.0.1:0', '--storage', `sqlite://${db}`], {
    MINNOW_MAX_UNAUTHENTICATED_CONNECTIONS_PER_IP: '1000', // 50 logins at once from one address
  });
  try {
    const idle = broker.memory();
    console.log(`idle: RSS ${(idle.rss / 2 ** 20).toFixed(0)} MiB`);
    for (const mechanism of ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
      const cpu0 = cpuMs(broker.pid);
      const t0 = performance.now();
      let next = 0;
      const worker = async () => {
        while (next++ < LOGINS) {
          const c = await KafkaConnection.connect('127.0.0.1', broker.port, {
            sasl: { mechanism, username: 'bench', password: 'bench-pw' },
          });
          c.close();
        }
      };
      await Promise.all(Array.from({ length: 4 }, worker));
      const ms = performance.now() - t0;
      const cpu = cpuMs(broker.pid) - cpu0;
      console.log(
        `${mechanism}: ${LOGINS} logins in ${ms.toFixed(0)} ms (${((LOGINS * 1000) / ms).toFixed(0)}/s), broker CPU ${(cpu / LOGINS).toFixed(2)} ms per login`,
      );
    }
    const t0 = performance.now();
    let next = 0;
    const worker = async () => {
      while (next++ < FLOOD) {
        await KafkaConnection.connect('127.0.0.1', broker.port, {
          sasl: { mechanism: 'SCRAM-SHA-512', username: `u${next}`, password: 'wrong' },
        }).then(
          (c) => c.close(),
          () => undefined,
        );
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const m = broker.memory();
    console.log(
      `flood: ${FLOOD} failed logins over ${CONCURRENCY} connections in ${(performance.now() - t0).toFixed(0)} ms; RSS ${(m.rss / 2 ** 20).toFixed(0)} MiB, peak ${(m.hwm / 2 ** 20).toFixed(0)} MiB`,
    );
  } finally {
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
