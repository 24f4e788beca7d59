// npm run crash: the kill -9 crash suite at length, outside jest. Options: --kills N (per sync
// mode, default 50), --seed N, --sync normal|full|both (default both), --keep (keep the files).
// --groups consumer|share|both runs the Kafka 4 group suite instead (group-crash-run.ts: Java 4.x
// members of a KIP-848 consumer group or a KIP-932 share group; --kills default 20 there).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { buildDriver, driverClasspath } from '../../test/integration/java-driver';
import { runCrashSuite } from '../resilience/crash-run';
import { runGroupCrash } from '../resilience/group-crash-run';

async function groups(dir: string, seed: number, kills: number, which: string): Promise<boolean> {
  await buildDriver();
  const modes = which === 'both' ? (['consumer', 'share'] as const) : [which as 'consumer' | 'share'];
  let ok = true;
  for (const mode of modes) {
    const report = await runGroupCrash({
      mode,
      dir,
      seed,
      kills,
      javaClasspath: driverClasspath('kafka-4'),
      log: console.log,
    });
    console.log(JSON.stringify({ ...report, story: undefined }));
    ok &&= report.violations.length === 0 && report.outstanding.length === 0 && report.brokerErrors.length === 0;
  }
  return ok;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kills: { type: 'string' },
      seed: { type: 'string' },
      sync: { type: 'string', default: 'both' },
      groups: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 2 ** 31;
  const modes = values.sync === 'both' ? (['normal', 'full'] as const) : [values.sync as 'normal' | 'full'];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-crash-'));
  try {
    if (values.groups !== undefined) {
      if (!(await groups(dir, seed, Number(values.kills ?? 20), values.groups))) {
        process.exitCode = 1;
        values.keep = true;
      }
      return;
    }
    for (const synchronous of modes) {
      const report = await runCrashSuite({
        dir,
        seed,
        kills: Number(values.kills ?? 50),
        synchronous,
        log: console.log,
      });
      console.log(
        JSON.stringify({
          synchronous,
          ...report,
          startMs: undefined,
          meanStartMs: Math.round(report.startMs.reduce((a, b) => a + b, 0) / report.startMs.length),
        }),
      );
    }
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
    values.keep = true;
  } finally {
    if (values.keep) console.log(`kept ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
