// `minnow topic create|list|describe|delete`: topic admin over the Kafka protocol.
import { KafkaClient } from '../client/client';
import { bootstrapOf, intOption, parse, UsageError } from '../args';
import { connectOptionsOf } from '../client-auth';
import type { PartitionCleanerReport } from '../protocol/cleaner-state';

const USAGE = `usage:
  minnow topic create NAME [--partitions N] [--config k=v ...]
  minnow topic list                  (JSON array; e.g. minnow topic list | jq '.[].name')
  minnow topic describe NAME         (JSON: partitions with offsets, on compacted topics the dirty
                                     ratio and last compaction; configs)
  minnow topic delete NAME
options: --bootstrap-server HOST:PORT (default localhost:9092)`;

export async function topicCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = parse(
    argv,
    { partitions: { type: 'string', short: 'p' }, config: { type: 'string', multiple: true, short: 'c' } },
    USAGE,
  );
  const [action, name] = positionals;
  if (values.help || !action) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  const needName = () => {
    if (!name) throw new UsageError(`topic ${action} needs a topic name\n\n${USAGE}`);
    return name;
  };
  const client = new KafkaClient(bootstrapOf(values), connectOptionsOf(values));
  try {
    switch (action) {
      case 'create': {
        const configs: Record<string, string> = {};
        for (const c of (values.config as string[] | undefined) ?? []) {
          const eq = c.indexOf('=');
          if (eq <= 0) throw new UsageError(`--config ${c}: expected KEY=VALUE`);
          configs[c.slice(0, eq)] = c.slice(eq + 1);
        }
        const partitions = intOption(values, 'partitions', -1, 1);
        await client.createTopic(needName(), partitions, configs);
        out(JSON.stringify({ created: name, partitions: partitions === -1 ? 'default' : partitions, configs }));
        return 0;
      }
      case 'list': {
        const md = await client.metadata(null);
        const topics = md.topics
          .map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.length }))
          .sort((a, b) => a.name.localeCompare(b.name));
        out(JSON.stringify(topics, null, 2));
        return 0;
      }
      case 'describe': {
        const t = await client.topic(needName());
        const cleaner = new Map((await client.cleanerState(t.name)).map((c) => [c.partition, c]));
        const partitions = [];
        for (const p of t.partitions) {
          const earliest = await client.listOffset(t.name, p.partition, p.leader, -2n);
          const latest = await client.listOffset(t.name, p.partition, p.leader, -1n);
          partitions.push({
            partition: p.partition,
            leader: p.leader,
            earliestOffset: Number(earliest),
            latestOffset: Number(latest),
            messages: Number(latest - earliest),
            ...compaction(cleaner.get(p.partition)),
          });
        }
        const configs = Object.fromEntries((await client.describeTopicConfigs(t.name)).map((c) => [c.name, c.value]));
        out(JSON.stringify({ name: t.name, topicId: t.topicId, partitions, configs }, null, 2));
        return 0;
      }
      case 'delete':
        await client.deleteTopic(needName());
        out(JSON.stringify({ deleted: name }));
        return 0;
      default:
        throw new UsageError(`unknown topic action "${action}"\n\n${USAGE}`);
    }
  } finally {
    client.close();
  }
}

/**
 * A compacted partition's compactor state (issue 17): the dirty ratio now (the share of the log's
 * bytes written since the last pass and eligible; min.cleanable.dirty.ratio triggers a pass), the
 * offset the last pass cleaned up to, and when that pass ran with the partition's bytes before and
 * after it (null when none ran yet). Nothing for a delete-only topic.
 */
function compaction(c: PartitionCleanerReport | undefined) {
  if (!c?.compacted) return {};
  return {
    dirtyRatio: Math.round(c.dirtyRatio * 1000) / 1000,
    cleanOffset: c.cleanOffset,
    lastCompaction:
      c.lastCleanedMs < 0
        ? null
        : { at: new Date(c.lastCleanedMs).toISOString(), bytesBefore: c.lastBytesBefore, bytesAfter: c.lastBytesAfter },
  };
}
