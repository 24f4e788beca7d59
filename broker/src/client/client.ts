// A small Kafka client on the generated codec, for the CLI and the load tool: metadata, admin,
// produce and fetch against any Kafka broker (partition leaders found through Metadata).
import { ApiKey } from '../protocol/api-keys';
import { CLEANER_STATE_KEY, type PartitionCleanerReport } from '../protocol/cleaner-state';
import { ErrorCode, errorName } from '../protocol/error-codes';
import type {
  CreateTopicsResponse,
  DeleteTopicsResponse,
  DescribeConfigsResponse,
  FetchResponse,
  ListOffsetsResponse,
  MetadataResponse,
  ProduceResponse,
} from '../protocol/messages';
import { ConnectOptions, KafkaClientError, KafkaConnection, parseHostPort } from './connection';
import { recordBytes } from '../protocol/records';

export interface PartitionMeta {
  partition: number;
  leader: number;
  errorCode: number;
}
export interface TopicMeta {
  name: string;
  topicId: string;
  errorCode: number;
  partitions: PartitionMeta[];
}

export class KafkaClient {
  private bootstrapConn: KafkaConnection | undefined;
  private readonly byNode = new Map<number, Promise<KafkaConnection>>();
  private brokers = new Map<number, { host: string; port: number }>();

  constructor(
    readonly bootstrap: string,
    private readonly opts: ConnectOptions = {},
  ) {}

  async connect(): Promise<KafkaConnection> {
    if (!this.bootstrapConn) {
      const errors: string[] = [];
      for (const addr of this.bootstrap.split(',')) {
        const { host, port } = parseHostPort(addr);
        try {
          this.bootstrapConn = await KafkaConnection.connect(host, port, this.opts);
          break;
        } catch (err) {
          errors.push((err as Error).message);
        }
      }
      if (!this.bootstrapConn) throw new KafkaClientError(errors.join('; '));
    }
    return this.bootstrapConn;
  }

  /** A connection to broker `nodeId` (as named by the last Metadata), opened once. */
  async node(nodeId: number): Promise<KafkaConnection> {
    let c = this.byNode.get(nodeId);
    if (!c) {
      const b = this.brokers.get(nodeId);
      if (!b) throw new KafkaClientError(`broker ${nodeId} is not in the cluster metadata`);
      c = KafkaConnection.connect(b.host, b.port, this.opts);
      this.byNode.set(nodeId, c);
    }
    return c;
  }

  async metadata(
    topics: string[] | null,
    allowAutoTopicCreation = false,
  ): Promise<{ clusterId: string | null; controllerId: number; topics: TopicMeta[] }> {
    const conn = await this.connect();
    const v = conn.version(ApiKey.Metadata, 1, 12);
    const res: MetadataResponse = await conn.send(ApiKey.Metadata, v, {
      topics: topics === null ? null : topics.map((name) => ({ name })),
      allowAutoTopicCreation,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    this.brokers = new Map(res.brokers.map((b) => [b.nodeId, { host: b.host, port: b.port }]));
    return {
      clusterId: res.clusterId ?? null,
      controllerId: res.controllerId ?? -1,
      topics: res.topics.map((t) => ({
        name: t.name ?? '',
        topicId: t.topicId ?? '',
        errorCode: t.errorCode,
        partitions: t.partitions
          .map((p) => ({ partition: p.partitionIndex, leader: p.leaderId, errorCode: p.errorCode }))
          .sort((a, b) => a.partition - b.partition),
      })),
    };
  }

  /** Topic metadata, failing with a clear message if it does not exist. */
  async topic(name: string): Promise<TopicMeta> {
    const md = await this.metadata([name]);
    const t = md.topics[0];
    if (!t || t.errorCode !== ErrorCode.NONE)
      throw new KafkaClientError(
        `topic ${name}: ${errorName(t?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)}`,
        t?.errorCode,
      );
    return t;
  }

  async createTopic(
    name: string,
    numPartitions: number,
    configs: Record<string, string>,
    validateOnly = false,
  ): Promise<void> {
    const conn = await this.connect();
    const v = conn.version(ApiKey.CreateTopics, 2, 7);
    const res: CreateTopicsResponse = await conn.send(ApiKey.CreateTopics, v, {
      topics: [
        {
          name,
          numPartitions,
          replicationFactor: -1,
          assignments: [],
          configs: Object.entries(configs).map(([k, value]) => ({ name: k, value })),
        },
      ],
      timeoutMs: 30_000,
      validateOnly,
    });
    const r = res.topics[0]!;
    if (r.errorCode !== ErrorCode.NONE)
      throw new KafkaClientError(
        `create topic ${name}: ${errorName(r.errorCode)}${r.errorMessage ? `: ${r.errorMessage}` : ''}`,
        r.errorCode,
      );
  }

  async deleteTopic(name: string): Promise<void> {
    const conn = await this.connect();
    const v = conn.version(ApiKey.DeleteTopics, 1, 5);
    const res: DeleteTopicsResponse = await conn.send(ApiKey.DeleteTopics, v, {
      topicNames: [name],
      timeoutMs: 30_000,
    });
    const r = res.responses[0]!;
    if (r.errorCode !== ErrorCode.NONE)
      throw new KafkaClientError(
        `delete topic ${name}: ${errorName(r.errorCode)}${r.errorMessage ? `: ${r.errorMessage}` : ''}`,
        r.errorCode,
      );
  }

  async describeTopicConfigs(name: string): Promise<{ name: string; value: string | null; source: number }[]> {
    const conn = await this.connect();
    const v = conn.version(ApiKey.DescribeConfigs, 1, 4);
    const res: DescribeConfigsResponse = await conn.send(ApiKey.DescribeConfigs, v, {
      resources: [{ resourceType: 2, resourceName: name, configurationKeys: null }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    const r = res.results[0]!;
    if (r.errorCode !== ErrorCode.NONE)
      throw new KafkaClientError(`describe configs of ${name}: ${errorName(r.errorCode)}`, r.errorCode);
    return r.configs.map((c) => ({ name: c.name, value: c.value, source: c.configSource ?? -1 }));
  }

  /**
   * minnow's compactor state of each partition (server/cleaner-report.ts), asked by name in
   * DescribeConfigs; [] from a broker that does not report it (Kafka).
   */
  async cleanerState(name: string): Promise<PartitionCleanerReport[]> {
    const conn = await this.connect();
    const v = conn.version(ApiKey.DescribeConfigs, 1, 4);
    const res: DescribeConfigsResponse = await conn.send(ApiKey.DescribeConfigs, v, {
      resources: [{ resourceType: 2, resourceName: name, configurationKeys: [CLEANER_STATE_KEY] }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    const entry = res.results[0]?.configs.find((c) => c.name === CLEANER_STATE_KEY);
    return entry?.value ? (JSON.parse(entry.value) as PartitionCleanerReport[]) : [];
  }

  /** ListOffsets for one partition: timestamp -2 earliest, -1 latest. */
  async listOffset(topic: string, partition: number, leader: number, timestamp: bigint): Promise<bigint> {
    const conn = await this.node(leader);
    const v = conn.version(ApiKey.ListOffsets, 1, 7);
    const res: ListOffsetsResponse = await conn.send(ApiKey.ListOffsets, v, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp }] }],
    });
    const p = res.topics[0]!.partitions[0]!;
    if (p.errorCode !== ErrorCode.NONE)
      throw new KafkaClientError(`list offsets ${topic}/${partition}: ${errorName(p.errorCode)}`, p.errorCode);
    return p.offset ?? -1n;
  }

  /** Produces one record batch (already encoded) to a partition's leader. */
  async produce(
    topic: string,
    partition: number,
    leader: number,
    batch: Buffer,
    acks: number,
    timeoutMs = 30_000,
  ): Promise<bigint> {
    const conn = await this.node(leader);
    const v = conn.version(ApiKey.Produce, 3, 9);
    const body = {
      transactionalId: null,
      acks,
      timeoutMs,
      topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }],
    };
    if (acks === 0) {
      await conn.send(ApiKey.Produce, v, body, false);
      return -1n;
    }
    const res: ProduceResponse = await conn.send(ApiKey.Produce, v, body);
    const p = res.responses[0]!.partitionResponses[0]!;
    if (p.errorCode !== ErrorCode.NONE)
      throw new KafkaClientError(
        `produce to ${topic}/${partition}: ${errorName(p.errorCode)}${p.errorMessage ? `: ${p.errorMessage}` : ''}`,
        p.errorCode,
      );
    return p.baseOffset;
  }

  /** One Fetch of a single partition. */
  async fetch(
    topic: string,
    partition: number,
    leader: number,
    offset: bigint,
    opts: { maxWaitMs?: number; maxBytes?: number } = {},
  ): Promise<{ errorCode: number; highWatermark: bigint; records: Buffer | null }> {
    const conn = await this.node(leader);
    const v = conn.version(ApiKey.Fetch, 4, 11);
    const maxBytes = opts.maxBytes ?? 4 * 1024 * 1024;
    const res: FetchResponse = await conn.send(ApiKey.Fetch, v, {
      replicaId: -1,
      maxWaitMs: opts.maxWaitMs ?? 500,
      minBytes: 1,
      maxBytes,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic,
          partitions: [
            {
              partition,
              currentLeaderEpoch: -1,
              fetchOffset: offset,
              logStartOffset: -1n,
              partitionMaxBytes: maxBytes,
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    });
    const p = res.responses[0]!.partitions[0]!;
    return { errorCode: p.errorCode, highWatermark: p.highWatermark, records: p.records && recordBytes(p.records) };
  }

  close(): void {
    this.bootstrapConn?.close();
    for (const c of this.byNode.values())
      c.then(
        (x) => x.close(),
        () => {},
      );
  }
}
