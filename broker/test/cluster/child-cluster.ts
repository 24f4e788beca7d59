// Several `minnow serve` child processes on one postgres:// database, as the integration tests of
// src/cluster need them: each with its own node id and port, short leases so a killed one leaves
// Metadata within seconds.
import * as path from 'node:path';
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
    for (let i = 0; i < n; i++) brokers.push(await start(i));
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
  };
}
