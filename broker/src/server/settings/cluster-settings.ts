// Which cluster and node this broker is, and its lease among several brokers on one PostgreSQL
// database (src/cluster).
import { int, nonEmpty, Setting } from './setting';

export interface ClusterSettings {
  clusterId: string | undefined;
  nodeId: number | undefined;
  /** postgres:// with NODE_ID unset: where the node id taken from the database is kept (src/cluster). */
  nodeIdFile: string;
  /** postgres://: how often a broker renews its lease in the database (src/cluster). */
  brokerHeartbeatMs: number;
  /** postgres://: a broker not renewed this long is taken out of Metadata and its groups move. */
  brokerLeaseMs: number;
}

export const CLUSTER_SETTINGS = [
  {
    key: 'clusterId',
    env: 'CLUSTER_ID',
    flag: 'cluster-id',
    doc: 'cluster id stored in a new database (an existing one keeps its own)',
    default: undefined,
    expected: 'a non-empty string',
    parse: nonEmpty,
  },
  {
    key: 'nodeId',
    env: 'NODE_ID',
    flag: 'node-id',
    doc: 'node id stored in a new database',
    default: undefined,
    expected: 'an integer 0..2147483647',
    parse: int(0, 2 ** 31 - 1),
  },
  {
    key: 'nodeIdFile',
    env: 'MINNOW_NODE_ID_FILE',
    flag: 'node-id-file',
    doc: 'postgres:// without NODE_ID: the file keeping the node id the database gave this broker',
    default: './data/minnow-node-id',
    expected: 'a file path',
    parse: nonEmpty,
  },
  {
    key: 'brokerHeartbeatMs',
    env: 'MINNOW_BROKER_HEARTBEAT_MS',
    flag: 'broker-heartbeat-ms',
    doc: 'postgres://: how often each broker renews its lease in the database',
    default: '2000',
    expected: 'an integer 10..600000 (ms)',
    parse: int(10, 600_000),
  },
  {
    key: 'brokerLeaseMs',
    env: 'MINNOW_BROKER_LEASE_MS',
    flag: 'broker-lease-ms',
    doc: 'postgres://: a broker that did not renew its lease for this long leaves Metadata and its groups move to the others',
    default: '10000',
    expected: 'an integer 100..3600000 (ms)',
    parse: int(100, 3_600_000),
  },
] as const satisfies readonly Setting<ClusterSettings>[];
