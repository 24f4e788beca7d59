// npm run fuzz: the socket fuzz at length (100,000 cases by default) against `minnow serve` in a
// child process, with a progress line per health check. Options: --cases N, --seed N,
// --concurrency N, --rss-bound-mib N, --case I (replay one case of --seed: write its bytes, check
// the broker), --keep (keep the temp folder).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { ChildBroker } from '../resilience/child-broker';
import { fuzzGenerator } from '../resilience/fuzz-frames';
import { healthCheck, runFuzz } from '../resilience/fuzz-run';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import * as net from 'node:net';

async function replay(seed: number, index: number, dir: string): Promise<void> {
  const broker = await ChildBroker.start({
    storageUrl: `sqlite://${path.join(dir, 'replay.db')}`,
    env: { LOG_LEVEL: 'debug' },
  });
  try {
    const probe = await KafkaConnection.connect('127.0.0.1', broker.port);
    const res = await probe.send(ApiKey.ApiVersions, 3, { clientSoftwareName: 'fuzz', clientSoftwareVersion: '1' });
    probe.close();
    const c = fuzzGenerator(
      seed,
      new Map(
        res.apiKeys.map((k: { apiKey: number; minVersion: number; maxVersion: number }) => [
          k.apiKey,
          { min: k.minVersion, max: k.maxVersion },
        ]),
      ),
    ).case(index);
    console.log(`case ${index} of seed ${seed}: ${c.kind}\n${c.bytes.toString('hex')}`);
    await new Promise<void>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port: broker.port }, () => s.write(c.bytes));
      s.on('data', (d) => console.log(`answer: ${d.toString('hex')}`));
      s.on('close', () => resolve());
      s.on('error', () => resolve());
      setTimeout(() => s.destroy(), 1000);
    });
    await healthCheck(broker.port, 0);
    console.log('broker healthy after the case');
  } finally {
    await broker.stop();
    for (const l of broker.lines) console.log(JSON.stringify(l));
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      cases: { type: 'string', default: '100000' },
      seed: { type: 'string' },
      concurrency: { type: 'string', default: '100' },
      'rss-bound-mib': { type: 'string', default: '320' },
      case: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  });
  const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 2 ** 31;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'minnow-fuzz-'));
  try {
    if (values.case !== undefined) return await replay(seed, Number(values.case), dir);
    const report = await runFuzz({
      seed,
      cases: Number(values.cases),
      dir,
      concurrency: Number(values.concurrency),
      rssBoundMiB: Number(values['rss-bound-mib']),
      checkEvery: 10_000,
      log: console.log,
    });
    console.log(JSON.stringify(report, null, 2));
    if (report.errorLines.length > 0) {
      console.error(`fuzz: the broker logged ${report.errorLines.length} error lines (seed ${seed})`);
      process.exitCode = 1;
    }
  } catch (err) {
    console.error(String((err as Error).message ?? err));
    process.exitCode = 1;
    values.keep = true;
  } finally {
    if (values.keep) console.log(`kept ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
