// `minnow produce TOPIC`: one record per stdin line, sent in batches to each partition's leader.
import * as readline from 'node:readline';
import { KafkaClient } from '../client/client';
import { partitionForKey } from '../client/partitioner';
import { CompressionType } from '../protocol/compression';
import { encodeRecordBatch, RecordInput } from '../protocol/record-batch';
import { bootstrapOf, intOption, parse, UsageError } from '../args';
import { connectOptionsOf } from '../client-auth';

const USAGE = `usage: minnow produce TOPIC [--key-separator SEP] [--partition P] [--acks 0|1|all]
                      [--compression none|gzip|snappy|lz4|zstd] [--batch-records N]
Reads stdin, one record per line. With --key-separator, "KEY<SEP>VALUE" lines are keyed and a key
always goes to the same partition (Kafka's murmur2 partitioner); unkeyed lines rotate partitions.`;

export const COMPRESSION_BY_NAME: Record<string, CompressionType> = {
  none: CompressionType.None,
  gzip: CompressionType.Gzip,
  snappy: CompressionType.Snappy,
  lz4: CompressionType.Lz4,
  zstd: CompressionType.Zstd,
};

export function parseAcks(s: string | undefined): number {
  if (s === undefined || s === 'all' || s === '-1') return -1;
  if (s === '0' || s === '1') return Number(s);
  throw new UsageError(`--acks ${s}: expected 0, 1 or all`);
}

export async function produceCommand(
  argv: string[],
  input: NodeJS.ReadableStream = process.stdin,
  out: (line: string) => void = console.error,
): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      'key-separator': { type: 'string', short: 'K' },
      partition: { type: 'string', short: 'p' },
      acks: { type: 'string' },
      compression: { type: 'string', short: 'z' },
      'batch-records': { type: 'string' },
    },
    USAGE,
  );
  const topic = positionals[0];
  if (values.help || !topic) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  const compression = COMPRESSION_BY_NAME[(values.compression as string | undefined) ?? 'none'];
  if (compression === undefined)
    throw new UsageError(
      `--compression ${String(values.compression)}: expected ${Object.keys(COMPRESSION_BY_NAME).join('|')}`,
    );
  const acks = parseAcks(values.acks as string | undefined);
  const sep = values['key-separator'] as string | undefined;
  const batchRecords = intOption(values, 'batch-records', 1000, 1);
  const client = new KafkaClient(bootstrapOf(values), connectOptionsOf(values));
  try {
    const meta = await client.topic(topic);
    const count = meta.partitions.length;
    const fixed = values.partition === undefined ? undefined : intOption(values, 'partition', 0);
    if (fixed !== undefined && fixed >= count)
      throw new UsageError(`--partition ${fixed}: topic ${topic} has ${count} partitions`);
    const pending = new Map<number, RecordInput[]>();
    let roundRobin = 0;
    let sent = 0;
    const flush = async (p: number) => {
      const records = pending.get(p);
      if (!records || records.length === 0) return;
      pending.set(p, []);
      await client.produce(topic, p, meta.partitions[p]!.leader, encodeRecordBatch({ records, compression }), acks);
      sent += records.length;
    };
    const lines = readline.createInterface({ input, crlfDelay: Infinity });
    for await (const line of lines) {
      let key: Buffer | null = null;
      let value = line;
      if (sep !== undefined) {
        const at = line.indexOf(sep);
        if (at >= 0) {
          key = Buffer.from(line.slice(0, at));
          value = line.slice(at + sep.length);
        }
      }
      const p = fixed ?? (key ? partitionForKey(key, count) : roundRobin++ % count);
      const list = pending.get(p) ?? [];
      list.push({ key, value: Buffer.from(value), timestamp: BigInt(Date.now()) });
      pending.set(p, list);
      if (list.length >= batchRecords) await flush(p);
    }
    for (const p of pending.keys()) await flush(p);
    out(`produced ${sent} records to ${topic}`);
    return 0;
  } finally {
    client.close();
  }
}
