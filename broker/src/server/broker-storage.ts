// The broker's database at start: opened, its cluster identity read (or stored on first open),
// the free-space floor set up on a SQLite file, the bootstrap admin created. A failure after the
// open closes it again (and its lock: a retry in this process must not find it held).
import type { Logger } from '../logger';
import { DiskSpace } from '../storage/disk-space';
import { openStorage } from '../storage/open-storage';
import { SqliteStorage } from '../storage/sqlite/sqlite-storage';
import type { ClusterIdentity, Storage } from '../storage/storage';
import { syncEngine } from '../storage/sync-adapter';
import type { BrokerConfig } from './config';
import { ensureBootstrapAdmin } from './sasl/bootstrap-admin';
import { OFFSETS_TOPIC } from './offsets-topic';
import { isReservedTopic } from './topic-names';

export interface BrokerStorage {
  storage: Storage;
  /** The SQLite engine when state lives in a SQLite file (its path, its reusable pages). */
  sqliteFile: SqliteStorage | undefined;
  /** The free-space floor of the SQLite file's volume (MINNOW_MIN_FREE_BYTES); none on a network engine. */
  diskSpace: DiskSpace | undefined;
  /** As stored in the database (the node id before src/cluster may assign one). */
  identity: ClusterIdentity;
}

export async function openBrokerStorage(config: BrokerConfig, logger: Logger): Promise<BrokerStorage> {
  const storage: Storage = await openStorage(config.storageUrl, {
    synchronous: config.sqliteSynchronous,
    walMaxBytes: config.walMaxBytes,
    warn: (msg, fields) => logger.error(msg, fields),
  });
  // The free-space floor watches the SQLite file (a network engine's disk is not this host's).
  const sqlite = syncEngine(storage);
  const sqliteFile = sqlite instanceof SqliteStorage ? sqlite : undefined;
  const diskSpace = sqliteFile
    ? new DiskSpace({
        dbPath: sqliteFile.path,
        floorBytes: config.minFreeBytes,
        reusableBytes: () => sqliteFile.reusableBytes(),
        log: (msg, fields) => logger.error(msg, fields),
      })
    : undefined;
  diskSpace?.refresh(); // writes the reserve file if there is room for it
  let identity;
  try {
    identity = await storage.identity({ clusterId: config.clusterId, nodeId: config.nodeId });
  } catch (err) {
    await storage.close(); // and its lock: a retry in this process must not find it held
    throw err;
  }
  if (config.clusterId && config.clusterId !== identity.clusterId) {
    logger.warn('CLUSTER_ID differs from the id stored in the database; keeping the stored one', {
      wanted: config.clusterId,
      stored: identity.clusterId,
    });
  }
  const unexpected = (name: string) => isReservedTopic(name) && name !== OFFSETS_TOPIC; // offsets-topic.ts creates that one
  for (const t of (await storage.listTopics()).filter((t) => unexpected(t.name))) {
    // An older minnow auto-created internal names as ordinary topics (a lag monitor asking for
    // __consumer_offsets did); offsets were never kept there.
    logger.warn(
      'a topic has an internal topic name; minnow keeps that state in its database, not in a topic: delete it (kafka-topics --delete)',
      { topic: t.name, partitions: t.partitionCount },
    );
  }
  try {
    await ensureBootstrapAdmin(storage, config.adminUser, config.adminPasswordFile, logger);
  } catch (err) {
    await storage.close();
    throw err;
  }
  return { storage, sqliteFile, diskSpace, identity };
}
