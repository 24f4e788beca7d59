// `minnow perf produce|consume|e2e`: the load tool (src/perf/). Options in src/perf/options.ts;
// --json FILE (or -) writes the machine-readable summary the benchmark harness reads.
import { writeFileSync } from 'node:fs';
import { runConsumePerf } from '../perf/consumer';
import { runE2e } from '../perf/e2e';
import {
  CONSUME_USAGE,
  E2E_USAGE,
  parseConsumeArgs,
  parseE2eArgs,
  parseProduceArgs,
  PRODUCE_USAGE,
} from '../perf/options';
import { PerfIo, processIo, runProducePerf } from '../perf/producer';
import { UsageError } from '../args';

const USAGE = `usage: minnow perf produce|consume|e2e [options]   (minnow perf SUBCOMMAND --help)

  produce   load a topic at a fixed or unlimited rate; latency percentiles from intended send times
  consume   read a topic as fast as possible; kafka-consumer-perf-test's columns
  e2e       end-to-end latency, one record in flight`;

function writeJson(file: string | undefined, summary: unknown, io: PerfIo): void {
  if (file === undefined) return;
  const text = `${JSON.stringify(summary, (_k, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
  if (file === '-') io.out(text.trimEnd());
  else writeFileSync(file, text);
}

export async function perfCommand(argv: string[], io: PerfIo = processIo()): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'produce': {
      const opts = parseProduceArgs(rest);
      if (opts === 'help') return (io.out(PRODUCE_USAGE), 0);
      writeJson(opts.jsonFile, await runProducePerf(opts, io), io);
      return 0;
    }
    case 'consume': {
      const opts = parseConsumeArgs(rest);
      if (opts === 'help') return (io.out(CONSUME_USAGE), 0);
      const summary = await runConsumePerf(opts, io);
      writeJson(opts.jsonFile, summary, io);
      return summary.timedOut ? 1 : 0;
    }
    case 'e2e': {
      const opts = parseE2eArgs(rest);
      if (opts === 'help') return (io.out(E2E_USAGE), 0);
      writeJson(opts.jsonFile, await runE2e(opts, io), io);
      return 0;
    }
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.out(USAGE);
      return sub === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown perf subcommand "${sub}"\n\n${USAGE}`);
  }
}
