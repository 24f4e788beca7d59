// Several `minnow serve` child processes on one postgres:// database, as the integration tests of
// src/cluster need them: each with its own node id and port, short leases so a killed one leaves
// Metadata within seconds.
import * as path from 'node:path';
import { KafkaConnection } from '../../src/client/connection';
import { ApiKey } from '../../src/protocol/api-keys';
import { ChildBroker } from '../../tools/resilience/child-broker';

export const TEST_HEARTBEAT_MS = 500;
// Long enough that a broker starved of CPU on a busy test machine is not taken for dead.
export const TEST_LEASE_MS = 4_000;

export interface ChildCluster {
  brokers: ChildBroker[];
  /** "127.0.0.1:port" of broker i. */
  address(i: number): string;
  /** Starts broker i again (after a kill) with its node id, settings and port, as a supervisor would. */
  restart(i: number): Promise<void>;
  stop(): Promise<void>;
  /** Waits until every broker lists all of them (after a restart, say). */
  untilAllListed(): Promise<void>;
}

/** `storageUrl`: one URL for all, or broker i's (one reaching the database through a proxy). */
export async function startChildCluster(
  storageUrl: string | ((i: number) => string),
  dir: string,
  n = 3,
): Promise<ChildCluster> {
  const brokers: ChildBroker[] = [];
  const start = (i: number, port?: number) =>
    ChildBroker.start({
      storageUrl: typeof storageUrl === 'string' ? storageUrl : storageUrl(i),
      port,
      env: {
        LOG_LEVEL: 'info',
        NODE_ID: String(i + 1),
        MINNOW_NODE_ID_FILE: path.join(dir, `node-${i + 1}`),
        MINNOW_BROKER_HEARTBEAT_MS: String(TEST_HEARTBEAT_MS),
        MINNOW_BROKER_LEASE_MS: String(TEST_LEASE_MS),
        // Groups form at once: the tests have no late members to wait for.
        GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      },
    });
  try {
    // Side by side, as a supervisor starts them (one after another took ~1-1.5 s each).
    const started = await Promise.allSettled(Array.from({ length: n }, (_, i) => start(i)));
    for (const s of started) if (s.status === 'fulfilled') brokers.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    // A broker learns of the later ones at its next renewal: until every broker lists all n, they
    // place leaders and coordinators over different live sets (a test that asks broker 1 who
    // coordinates a group, then kills that broker, would kill the wrong one).
    await Promise.all(brokers.map((b) => untilListing(b.port, n)));
  } catch (err) {
    for (const b of brokers) await b.kill9();
    throw err;
  }
  return {
    brokers,
    address: (i) => `127.0.0.1:${brokers[i]!.port}`,
    async restart(i) {
      await brokers[i]!.kill9();
      brokers[i] = await start(i, brokers[i]!.port);
    },
    async stop() {
      await Promise.all(brokers.map((b) => b.stop()));
    },
    async untilAllListed() {
      await Promise.all(brokers.map((b) => untilListing(b.port, n)));
    },
  };
}

/** Waits (bounded: 20 s) until the broker on `port` lists `n` brokers in Metadata. */
async function untilListing(port: number, n: number): Promise<void> {
  const conn = await KafkaConnection.connect('127.0.0.1', port);
  try {
    let listed = 0;
    for (let i = 0; i < 200; i++) {
      listed = (await conn.send(ApiKey.Metadata, 9, { topics: [], allowAutoTopicCreation: false })).brokers.length;
      if (listed === n) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`broker on port ${port} lists ${listed} of ${n} brokers after 20 s`);
  } finally {
    conn.close();
  }
}

/** The node id broker i names as `group`'s coordinator (FindCoordinator v4). */
export async function coordinatorVia(cluster: ChildCluster, i: number, group: string): Promise<number> {
  const [host, port] = cluster.address(i).split(':');
  const conn = await KafkaConnection.connect(host!, Number(port));
  try {
    return (await conn.send(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: [group] })).coordinators[0]
      .nodeId;
  } finally {
    conn.close();
  }
}
