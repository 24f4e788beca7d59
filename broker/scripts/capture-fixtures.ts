/**
 * Captures golden request frames from real clients (kcat/librdkafka and kafkajs) into
 * test/fixtures/protocol/, using the broker's --dump-frames. Run it when a client or the codec
 * changes (needs kcat on PATH):
 *
 *   npx tsx scripts/capture-fixtures.ts
 *
 * Keeps the first frame per client, API and version (per codec for Produce).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { Reader } from '../src/protocol/reader';
import { requestHeaderVersion } from '../src/protocol/headers';
import { API_SPEC_BY_KEY } from '../src/protocol/messages';
import { startBroker } from '../src/server/broker';
import { silentLogger } from '../src/logger';

const OUT = path.join(__dirname, '..', 'test', 'fixtures', 'protocol');
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
export const KCAT_LINES = ['one', 'two', 'three'].map((w) => `${w} `.repeat(40).trim());

async function capture(client: string, work: (bootstrap: string) => Promise<void>): Promise<void> {
  const dump = fs.mkdtempSync(path.join(os.tmpdir(), `minnow-frames-${client}-`));
  const broker = await startBroker({
    logger: silentLogger,
    config: {
      listeners: [{ host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }],
      storageUrl: 'memory://',
      dumpFramesDir: dump,
    },
  });
  try {
    await work(`127.0.0.1:${broker.port}`);
  } finally {
    await broker.stop();
  }
  const kept = new Set<string>();
  const files = fs
    .readdirSync(dump)
    .sort(
      (a, b) => fs.statSync(path.join(dump, a)).mtimeMs - fs.statSync(path.join(dump, b)).mtimeMs || a.localeCompare(b),
    );
  for (const f of files) {
    const hex = fs.readFileSync(path.join(dump, f), 'utf8').trim();
    const frame = Buffer.from(hex, 'hex');
    const name = fixtureName(client, frame);
    if (!name || kept.has(name)) continue;
    kept.add(name);
    fs.writeFileSync(path.join(OUT, `${name}.hex`), hex + '\n');
  }
  fs.rmSync(dump, { recursive: true, force: true });
  console.log(`${client}: ${[...kept].sort().join(', ')}`);
}

function fixtureName(client: string, frame: Buffer): string | null {
  const r = new Reader(frame);
  const apiKey = r.int16();
  const version = r.int16();
  const spec = API_SPEC_BY_KEY.get(apiKey);
  if (!spec) return null;
  const api = spec.name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  let suffix = '';
  if (apiKey === 0) {
    r.int32();
    if (requestHeaderVersion(apiKey, version) >= 1) r.nullableString();
    if (requestHeaderVersion(apiKey, version) >= 2) r.skipTaggedFields();
    const req = spec.decodeRequest(r, version);
    const records: Buffer | null = req.topicData[0]?.partitionData[0]?.records ?? null;
    if (!records || records.length < 23) return null;
    suffix = `-${CODECS[records.readInt16BE(21) & 7]}`;
  }
  return `${client}-${api}-request-v${version}${suffix}`;
}

/** Runs kcat without blocking the event loop (the broker runs in this process). */
function kcat(bootstrap: string, args: string[], input = ''): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', ['-b', bootstrap, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`kcat ${args.join(' ')} failed (${code}): ${stderr}`));
    });
    child.stdin.end(input);
  });
}

async function main(): Promise<void> {
  fs.mkdirSync(OUT, { recursive: true });
  await capture('kcat', async (b) => {
    await kcat(b, ['-L']);
    // librdkafka sends a batch uncompressed when compression would not make it smaller, so the
    // records must compress: three long repetitive lines.
    for (const codec of CODECS) await kcat(b, ['-P', '-t', 'fixtures', '-z', codec], KCAT_LINES.join('\n') + '\n');
    await kcat(b, ['-C', '-t', 'fixtures', '-o', 'beginning', '-e']);
    await kcat(b, ['-G', 'fixture-group', '-o', 'beginning', '-e', 'fixtures']);
  });
  await capture('kafkajs', async (b) => {
    const kafka = new Kafka({ clientId: 'fixtures', brokers: [b], logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'fixtures', messages: [{ key: 'k', value: 'plain', headers: { h: 'v' } }] });
    await producer.send({ topic: 'fixtures', compression: CompressionTypes.GZIP, messages: [{ value: 'zipped' }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: 'fixture-group' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'fixtures', fromBeginning: true });
    let seen = 0;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 15_000);
      void consumer.run({
        eachMessage: async () => {
          if (++seen >= 2) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    await consumer.disconnect();
  });
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
