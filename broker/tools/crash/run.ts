// npm run crash: the kill -9 crash suite at length, outside jest. Options: --kills N (per sync
// mode, default 50), --seed N, --sync normal|full|both (default both), --keep (keep the files).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { runCrashSuite } from '../resilience/crash-run';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kills: { type: 'string', default: '50' },
      seed: { type: 'string' },
      sync: { type: 'string', default: 'both' },
      keep: { type: 'boolean', default: false },
    },
  });
  const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 2 ** 31;
  const modes = values.sync === 'both' ? (['normal', 'full'] as const) : [values.sync as 'normal' | 'full'];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-crash-'));
  try {
    for (const synchronous of modes) {
      const report = await runCrashSuite({ dir, seed, kills: Number(values.kills), synchronous, log: console.log });
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
