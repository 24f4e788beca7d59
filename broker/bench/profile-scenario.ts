// The bench's CPU profiles: node --cpu-prof on the broker under the seed load and the maximum
// produce loads, summarised to the top functions (cpu-profile.ts).
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { summarizeProfileFile } from './cpu-profile';
import { BrokerProcess, log, OUT, perf, ToolRun } from './processes';
import { maxRateArgs, pacedArgs, produceArgs, SEED_RATE } from './load-args';
import { bestConfigs } from './throughput-scenarios';
import type { ScenarioContext } from './scenario-context';

// Where the broker's CPU goes: node --cpu-prof on the seed load and the 1 KiB maximum.
export async function runProfiles(ctx: ScenarioContext): Promise<void> {
  const profDir = path.join(OUT, 'profiles');
  rmSync(profDir, { recursive: true, force: true });
  const numRecords = ctx.quick ? 21_000 : 84_000;
  await profile(ctx, 'seed load (7,000 x 1 KiB records/s, 12 s)', path.join(profDir, 'seed'), (b) =>
    perf('produce', pacedArgs(b.bootstrap, 'p', { numRecords }, SEED_RATE)),
  );
  const { c1, c100 } = bestConfigs(ctx);
  await profile(ctx, `maximum 1 KiB produce (${c1.name}, 6 s)`, path.join(profDir, 'max1k'), (b) =>
    perf('produce', produceArgs(b.bootstrap, 'p', 1024, c1, maxRateArgs(ctx.seconds(6)))),
  );
  await profile(ctx, `maximum 100 B produce (${c100.name}, 6 s)`, path.join(profDir, 'max100'), (b) =>
    perf('produce', produceArgs(b.bootstrap, 'p', 100, c100, maxRateArgs(ctx.seconds(6)))),
  );
}

async function profile(
  ctx: ScenarioContext,
  name: string,
  dir: string,
  load: (b: BrokerProcess) => Promise<ToolRun<unknown>>,
) {
  log(`profile: ${name}`);
  mkdirSync(dir, { recursive: true });
  const spawnedMs = Date.now();
  const b = await BrokerProcess.start(ctx.sqliteUrl(`prof-${ctx.r.profiles!.length}`), { cpuProfDir: dir });
  const run = await load(b);
  const stoppingMs = Date.now();
  await b.stop();
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  // Only the load: leave out start-up (module loading, migrations) and shutdown (final checkpoint).
  const window = {
    skipStartMs: run.fromMs - spawnedMs + 300,
    skipEndMs: Date.now() - stoppingMs + (stoppingMs - run.toMs),
  };
  if (file) ctx.r.profiles!.push({ name, summary: summarizeProfileFile(path.join(dir, file), 12, window) });
}
