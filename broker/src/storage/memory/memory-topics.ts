// The memory:// engine's topic catalog: each topic's info and one MemoryLog per partition, by name
// and by topic id. Copies go out, so a caller cannot change what is stored.
import { randomUuid } from '../../protocol/uuid';
import {
  checkNoShrink,
  checkPartitionCount,
  copyTopicInfo,
  topicExistsError,
  topicIdTakenError,
  unknownTopicError,
} from '../topic-rules';
import type { TopicInfo } from '../storage';
import { MemoryLog } from './memory-log';

export interface MemoryTopic {
  info: TopicInfo;
  logs: MemoryLog[];
}

export class MemoryTopics {
  private readonly byName = new Map<string, MemoryTopic>();
  private readonly byId = new Map<string, MemoryTopic>();
  private partitionTotal = 0;

  totalPartitions(): number {
    return this.partitionTotal;
  }

  /** Sorted by name. */
  list(): TopicInfo[] {
    return [...this.byName.values()]
      .map((t) => copyTopicInfo(t.info))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  get(name: string): TopicInfo | undefined {
    const t = this.byName.get(name);
    return t && copyTopicInfo(t.info);
  }
  getById(topicId: string): TopicInfo | undefined {
    const t = this.byId.get(topicId);
    return t && copyTopicInfo(t.info);
  }

  /** The stored topic itself (not a copy), for the engine's own modules. */
  stored(name: string): MemoryTopic | undefined {
    return this.byName.get(name);
  }
  /** Every stored topic, in creation order. */
  all(): IterableIterator<MemoryTopic> {
    return this.byName.values();
  }
  log(topic: string, partition: number): MemoryLog | undefined {
    return this.byName.get(topic)?.logs[partition];
  }

  create(name: string, partitionCount: number, configs: Record<string, string>, topicId?: string): TopicInfo {
    if (this.byName.has(name)) throw topicExistsError(name);
    checkPartitionCount(name, partitionCount);
    const id = topicId ?? randomUuid();
    const clash = this.byId.get(id);
    if (clash) throw topicIdTakenError(id, clash.info.name);
    const logs = Array.from({ length: partitionCount }, () => new MemoryLog());
    const topic: MemoryTopic = { info: { name, topicId: id, partitionCount, configs: { ...configs } }, logs };
    this.byName.set(name, topic);
    this.byId.set(id, topic);
    this.partitionTotal += partitionCount;
    return copyTopicInfo(topic.info);
  }

  /** Forgets the topic and its logs; false if it did not exist. */
  delete(name: string): boolean {
    const topic = this.byName.get(name);
    if (!topic) return false;
    this.byName.delete(name);
    this.byId.delete(topic.info.topicId);
    this.partitionTotal -= topic.logs.length;
    return true;
  }

  grow(name: string, partitionCount: number): void {
    const t = this.mustGet(name);
    checkPartitionCount(name, partitionCount);
    checkNoShrink(name, t.info.partitionCount, partitionCount);
    this.partitionTotal += partitionCount - t.logs.length;
    while (t.logs.length < partitionCount) t.logs.push(new MemoryLog());
    t.info.partitionCount = partitionCount;
  }

  alterConfigs(name: string, set: Record<string, string>, remove: readonly string[]): void {
    const t = this.mustGet(name);
    for (const k of remove) delete t.info.configs[k];
    Object.assign(t.info.configs, set);
  }

  private mustGet(name: string): MemoryTopic {
    const t = this.byName.get(name);
    if (!t) throw unknownTopicError(name);
    return t;
  }
}
