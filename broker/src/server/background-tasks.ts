// What the broker does between requests: the retention sweep every LOG_RETENTION_CHECK_INTERVAL_MS
// and the log cleaner (cleanup.policy=compact, issue 17), both stopped with the broker.
import type { Cluster } from '../cluster/cluster';
import { topicConfig } from '../storage/topic-config';
import { brokerTopicDefaults } from './broker-configs';
import type { BrokerContext } from './context';
import { LogCleanerTask } from './log-cleaner';
import { sweepRetention } from './retention-sweep-task';
import { retryIfDiskFull } from './space-retry';

export interface BackgroundTasks {
  /** Stops scheduling; resolves once the step under way (if any) of each task has ended. */
  stop(): Promise<void>;
}

/** `cluster`: the broker's own (context.cluster is optional for handlers' tests). */
export function startBackgroundTasks(context: BrokerContext, cluster: Cluster): BackgroundTasks {
  const { storage, identity, config, logger, diskSpace, now } = context;
  let stopped = false;
  // One retention step at a time: a step still awaiting storage when the next tick comes skips it.
  let retentionStep: Promise<void> | undefined;
  const retainOnce = async () => {
    try {
      // Dynamic broker configs (log.retention.ms / log.retention.bytes) change the topic defaults at runtime.
      const brokerDefaults = await brokerTopicDefaults(storage, identity.nodeId);
      const defaults = {
        retentionMs: Number(topicConfig({}, 'retention.ms', brokerDefaults)),
        retentionBytes: Number(topicConfig({}, 'retention.bytes', brokerDefaults)),
        cleanupPolicy: topicConfig({}, 'cleanup.policy', brokerDefaults),
      };
      const r = await sweepRetention(storage, {
        nowMs: now(),
        defaults,
        step: (call) => retryIfDiskFull(context, call),
        stopped: () => stopped,
      });
      if (r.deletedBatches > 0) {
        logger.info('retention deleted batches', { deletedBatches: r.deletedBatches, deletedBytes: r.deletedBytes });
        diskSpace?.invalidate();
      }
    } catch (err) {
      logger.error('retention step failed', { err });
    }
  };
  const retention = setInterval(() => {
    retentionStep ??= retainOnce().finally(() => (retentionStep = undefined));
  }, config.retentionCheckIntervalMs);
  retention.unref();
  // cleanup.policy=compact (issue 17): compaction steps between requests, every log.cleaner.backoff.ms when idle.
  const cleaner = new LogCleanerTask(storage, {
    backoffMs: config.logCleanerBackoffMs,
    dedupeBytes: config.logCleanerDedupeBytes,
    brokerDefaults: () => brokerTopicDefaults(storage, identity.nodeId),
    now,
    logger,
    // On a shared database each broker compacts the partitions it leads (the others' are theirs).
    cleans: cluster.shared ? (topic, partition) => cluster.leaderOf(topic, partition) === cluster.nodeId : undefined,
    onFreed: () => diskSpace?.invalidate(),
  });
  cleaner.start();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(retention);
      const retentionStopped = retentionStep;
      await cleaner.stop();
      await retentionStopped;
    },
  };
}
