// `minnow consume TOPIC`: prints records, one value per line (key first with --key-separator).
import { KafkaClient } from '../client/client';
import { ErrorCode, errorName } from '../protocol/error-codes';
import { decodeRecords, readBatchHeader, splitBatches } from '../protocol/record-batch';
import { bootstrapOf, intOption, parse, UsageError } from '../args';
import { connectOptionsOf } from '../client-auth';

const USAGE = `usage: minnow consume TOPIC [--from-beginning] [--max-messages N] [--partition P --offset O]
                      [--key-separator SEP] [--exit-at-end] [--idle-timeout-ms MS]
Without --from-beginning it starts at the end and waits for new records (Ctrl-C to stop).
--exit-at-end stops once every partition is read to its end.`;

export async function consumeCommand(
  argv: string[],
  out: (line: string) => void = (l) => process.stdout.write(l + '\n'),
): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      'from-beginning': { type: 'boolean' },
      'max-messages': { type: 'string', short: 'n' },
      partition: { type: 'string', short: 'p' },
      offset: { type: 'string', short: 'o' },
      'key-separator': { type: 'string', short: 'K' },
      'exit-at-end': { type: 'boolean', short: 'e' },
      'idle-timeout-ms': { type: 'string' },
    },
    USAGE,
  );
  const topic = positionals[0];
  if (values.help || !topic) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  if (values.offset !== undefined && values.partition === undefined) throw new UsageError('--offset needs --partition');
  const maxMessages = intOption(values, 'max-messages', -1, 1);
  const idleTimeoutMs = intOption(values, 'idle-timeout-ms', -1, 1);
  const sep = values['key-separator'] as string | undefined;
  const client = new KafkaClient(bootstrapOf(values), connectOptionsOf(values));
  let stop = false;
  const onSigint = () => (stop = true);
  process.once('SIGINT', onSigint);
  try {
    const meta = await client.topic(topic);
    const only = values.partition === undefined ? undefined : intOption(values, 'partition', 0);
    const parts = meta.partitions.filter((p) => only === undefined || p.partition === only);
    if (parts.length === 0)
      throw new UsageError(`--partition ${only}: topic ${topic} has ${meta.partitions.length} partitions`);
    const positions = new Map<number, bigint>();
    for (const p of parts) {
      const start =
        values.offset !== undefined
          ? BigInt(intOption(values, 'offset', 0))
          : await client.listOffset(topic, p.partition, p.leader, values['from-beginning'] ? -2n : -1n);
      positions.set(p.partition, start);
    }
    let printed = 0;
    let lastData = Date.now();
    while (!stop) {
      let atEnd = true;
      for (const p of parts) {
        const offset = positions.get(p.partition)!;
        const res = await client.fetch(topic, p.partition, p.leader, offset, {
          maxWaitMs: parts.length > 1 ? 100 : 500,
        });
        if (res.errorCode !== ErrorCode.NONE)
          throw new Error(`fetch ${topic}/${p.partition} at ${offset}: ${errorName(res.errorCode)}`);
        let next = offset;
        for (const batch of res.records ? splitBatches(res.records).batches : []) {
          const h = readBatchHeader(batch);
          for (const r of decodeRecords(batch)) {
            const off = h.baseOffset + BigInt(r.offsetDelta);
            if (off < offset) continue;
            const value = r.value === null ? '' : r.value.toString();
            out(sep !== undefined ? `${r.key === null ? '' : r.key.toString()}${sep}${value}` : value);
            next = off + 1n;
            lastData = Date.now();
            if (maxMessages > 0 && ++printed >= maxMessages) return 0;
          }
        }
        positions.set(p.partition, next);
        if (next < res.highWatermark) atEnd = false;
      }
      if (values['exit-at-end'] && atEnd) return 0;
      if (idleTimeoutMs > 0 && Date.now() - lastData > idleTimeoutMs) return 0;
    }
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    client.close();
  }
}
