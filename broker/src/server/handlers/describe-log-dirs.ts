// DescribeLogDirs (key 35): v1-4 (v0 is gone since Kafka 4.0, KIP-896), for kafka-log-dirs and the
// Java admin's describeLogDirs. minnow's one "log dir" is its database: the SQLite file's absolute
// path (memory:// for the in-memory engine), with each partition's stored batch bytes as its size
// and no lag (one replica). v4 adds the volume's total and usable bytes (-1, Kafka's "unknown",
// in memory). As in Kafka (ReplicaManager.describeLogDirs), partitions that do not exist are left
// out, and so are topics with none left.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApiKey } from '../../protocol/api-keys';
import { ErrorCode } from '../../protocol/error-codes';
import type {
  DescribeLogDirsRequest,
  DescribeLogDirsResponse,
  DescribeLogDirsResponseDescribeLogDirsTopic,
} from '../../protocol/messages';
import type { StorageUrl } from '../../storage/storage-url';
import type { ApiHandler, BrokerContext } from '../context';
import { mayOnCluster } from './authz';

const UNKNOWN_BYTES = -1n;

interface LogDir {
  logDir: string;
  totalBytes: bigint;
  usableBytes: bigint;
}

function logDirOf(target: StorageUrl): LogDir {
  if (target.kind === 'memory') return { logDir: 'memory://', totalBytes: UNKNOWN_BYTES, usableBytes: UNKNOWN_BYTES };
  if (target.kind === 'postgres') return { logDir: target.url, totalBytes: UNKNOWN_BYTES, usableBytes: UNKNOWN_BYTES };
  const file = path.resolve(target.path);
  try {
    const fsStats = fs.statfsSync(path.dirname(file), { bigint: true });
    return { logDir: file, totalBytes: fsStats.blocks * fsStats.bsize, usableBytes: fsStats.bavail * fsStats.bsize };
  } catch {
    return { logDir: file, totalBytes: UNKNOWN_BYTES, usableBytes: UNKNOWN_BYTES };
  }
}

async function describeTopics(
  broker: BrokerContext,
  wanted: { topic: string; partitions: number[] }[],
): Promise<DescribeLogDirsResponseDescribeLogDirsTopic[]> {
  const out: DescribeLogDirsResponseDescribeLogDirsTopic[] = [];
  for (const t of wanted) {
    const partitions = [];
    for (const p of t.partitions) {
      const bytes = await broker.storage.partitionBytes(t.topic, p);
      if (bytes !== undefined)
        partitions.push({ partitionIndex: p, partitionSize: BigInt(bytes), offsetLag: 0n, isFutureKey: false });
    }
    if (partitions.length > 0) out.push({ name: t.topic, partitions });
  }
  return out;
}

export const describeLogDirsHandler: ApiHandler<DescribeLogDirsRequest, DescribeLogDirsResponse> = {
  apiKey: ApiKey.DescribeLogDirs,
  minVersion: 1,
  maxVersion: 4,
  async handle(ctx, req) {
    const { broker } = ctx;
    // KafkaApis.handleDescribeLogDirsRequest: DESCRIBE on the cluster.
    if (!mayOnCluster(ctx, 'DESCRIBE'))
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
    const wanted =
      req.topics === null
        ? (await broker.storage.listTopics()).map((t) => ({
            topic: t.name,
            partitions: Array.from({ length: t.partitionCount }, (_, i) => i),
          }))
        : req.topics;
    const dir = logDirOf(broker.config.storageUrl);
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      results: [
        {
          errorCode: ErrorCode.NONE,
          logDir: dir.logDir,
          topics: await describeTopics(broker, wanted),
          totalBytes: dir.totalBytes,
          usableBytes: dir.usableBytes,
        },
      ],
    };
  },
};
