import type { Node } from 'constructs';
import { Remembered, VOLUME_REMEMBERED, rememberedKey } from './remembered-context';

/** The engine the brokers keep their state in: one SQLite file (default) or a shared PostgreSQL. */
export const StorageMode = { Sqlite: 'sqlite', Postgres: 'postgres' } as const;
export type StorageMode = (typeof StorageMode)[keyof typeof StorageMode];

/**
 * `-c storage=postgres`: several brokers on one RDS PostgreSQL (docs/postgres.md, "The kit"), for
 * availability, not throughput. Parsed once, like MinnowConfig.
 */
export interface PostgresConfig {
  /** Two or more zones of one region; brokers go round-robin over them, the database's subnets span them. */
  readonly availabilityZones: readonly string[];
  /** Brokers, node ids 1..brokers. @default 2 */
  readonly brokers: number;
  /** RDS instance class. @default 'db.t4g.micro' */
  readonly dbInstanceType: string;
  /** A synchronous standby in a second zone (RDS Multi-AZ): about twice the instance cost. @default false */
  readonly multiAz: boolean;
  /** @default true: `cdk destroy` cannot delete the database; -c dbDeletionProtection=false first */
  readonly dbDeletionProtection: boolean;
  /** gp3 storage of the database in GiB. @default 20 */
  readonly dbStorageGiB: number;
  /**
   * Moving up (docs/cluster.md, "How to migrate"): broker 1's /data volume is created from this snapshot
   * of a single instance's data volume, so `minnow migrate sqlite:///data/minnow.db ...` can run on
   * broker 1, which reaches the database. @default - a blank 1 GiB volume
   */
  readonly migrationSnapshotId?: string;
}

export const DEFAULT_BROKERS = 2;
/** Each broker holds an Elastic IP: beyond the default quota of 5 per region, ask AWS for more. */
export const MAX_BROKERS = 9;
export const DEFAULT_DB_INSTANCE_TYPE = 'db.t4g.micro';
export const DEFAULT_DB_STORAGE_GIB = 20;

const AZ = /^([a-z]{2}(?:-[a-z]+)+-\d+)[a-z]$/;

function str(node: Node, name: string): string | undefined {
  const value: unknown = node.tryGetContext(name);
  if (value === undefined || value === null || value === '') return undefined;
  return String(value).trim();
}

function bool(node: Node, name: string, fallback: boolean): boolean {
  const value = str(node, name);
  if (value === undefined) return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`context ${name}="${value}" is not a boolean: pass -c ${name}=true or -c ${name}=false`);
}

/**
 * The storage mode: -c storage, else the remembered one (a deployed cluster), else sqlite; anything
 * but sqlite or postgres is refused, and so is sqlite for a stack remembered as a cluster: the app
 * would synthesize the single-instance stack under the cluster's name, and the deploy would delete
 * the brokers and the database.
 */
export function readStorageMode(node: Node, stackName: string): StorageMode {
  const key = rememberedKey(stackName, Remembered.storage);
  const remembered = str(node, key);
  const given = str(node, 'storage');
  for (const value of [given, remembered]) {
    if (value !== undefined && value !== StorageMode.Sqlite && value !== StorageMode.Postgres) {
      throw new Error(`context storage="${value}" must be sqlite (the default: one instance) or postgres`);
    }
  }
  if (remembered === StorageMode.Postgres && given === StorageMode.Sqlite) {
    throw new Error(
      `context storage=sqlite, but stack ${stackName} is a storage=postgres cluster (cdk.context.json: ${key}): ` +
        'a single-instance stack under the same name would DELETE its brokers and its database. Leave out -c ' +
        `storage to keep the cluster; for one SQLite instance deploy another stack (-c stackName=${stackName}Single); ` +
        `if the cluster was never deployed, npx cdk context --reset ${key}.`,
    );
  }
  return (given ?? remembered ?? StorageMode.Sqlite) as StorageMode;
}

/** The context values only a single SQLite instance has (its data volume); refused with storage=postgres. */
const SQLITE_ONLY = ['availabilityZone', 'dataVolumeGiB', 'dataSnapshotId', 'dataVolumeKmsKeyArn'] as const;

/**
 * Reads the postgres values. If cdk.context.json pins a SQLite stack's data volume under this stack
 * name, that stack exists (or existed), and turning it into a cluster would delete its volume: refused.
 */
export function readPostgresConfig(node: Node, stackName: string): PostgresConfig {
  const rememberedVolumeKeys = VOLUME_REMEMBERED.map((name) => rememberedKey(stackName, name));
  const given = SQLITE_ONLY.filter((name) => str(node, name) !== undefined);
  if (given.length > 0) {
    throw new Error(
      `context ${given.join(', ')}: storage=postgres has no data volume (the state is in the database); ` +
        'pass the zones as -c availabilityZones=<zone>,<zone> instead',
    );
  }
  const remembered = rememberedVolumeKeys.filter((key) => str(node, key) !== undefined);
  if (remembered.length > 0) {
    throw new Error(
      `stack ${stackName} is a single-instance SQLite stack (cdk.context.json: ${remembered.join(', ')}); ` +
        'storage=postgres would delete its data volume. Deploy the cluster as a new stack ' +
        `(-c stackName=${stackName}Cluster) and move the data with minnow migrate (docs/cluster.md, "How to migrate"); ` +
        `if it was never deployed, npx cdk context --reset <key> for each key.`,
    );
  }

  const zones = rememberedZones(node, stackName);
  const zonesText = zones.given ?? zones.remembered;
  if (zonesText === undefined) {
    throw new Error(
      'missing context value availabilityZones: storage=postgres spreads brokers and the database over two or ' +
        'more zones of one region, e.g. -c availabilityZones=eu-west-2a,eu-west-2b (remembered in cdk.context.json ' +
        'after the first deploy)',
    );
  }
  const availabilityZones = zonesText.split(',').map((z) => z.trim());
  const regions = new Set(availabilityZones.map((z) => AZ.exec(z)?.[1]));
  if (availabilityZones.some((z) => !AZ.test(z))) {
    throw new Error(`context availabilityZones="${zonesText}" must be zone names like eu-west-2a,eu-west-2b`);
  }
  if (new Set(availabilityZones).size !== availabilityZones.length || availabilityZones.length < 2) {
    throw new Error(`context availabilityZones="${zonesText}" must name two or more different zones`);
  }
  if (regions.size !== 1) {
    throw new Error(`context availabilityZones="${zonesText}" must all be zones of one region`);
  }
  if (availabilityZones.length > 4) {
    throw new Error(`context availabilityZones="${zonesText}": at most 4 zones (the VPC has room for 8 subnets)`);
  }

  // A different count on purpose is allowed (brokers are added or removed) and remembered anew.
  const brokersText = str(node, 'brokers') ?? str(node, rememberedKey(stackName, Remembered.brokers));
  const brokers = brokersText === undefined ? DEFAULT_BROKERS : Number(brokersText);
  if (!Number.isInteger(brokers) || brokers < 2 || brokers > MAX_BROKERS) {
    throw new Error(
      `context brokers="${brokersText}" must be a whole number from 2 to ${MAX_BROKERS} ` +
        '(one broker is the SQLite stack: leave out storage=postgres)',
    );
  }

  const dbInstanceType = str(node, 'dbInstanceType') ?? DEFAULT_DB_INSTANCE_TYPE;
  if (!/^db\.[a-z]+\d[a-z0-9-]*\.[a-z0-9]+$/.test(dbInstanceType)) {
    throw new Error(`context dbInstanceType="${dbInstanceType}" is not an RDS instance class, e.g. db.t4g.micro`);
  }

  const storageText = str(node, 'dbStorageGiB');
  const dbStorageGiB = storageText === undefined ? DEFAULT_DB_STORAGE_GIB : Number(storageText);
  if (!Number.isInteger(dbStorageGiB) || dbStorageGiB < 20 || dbStorageGiB > 65536) {
    throw new Error(
      `context dbStorageGiB="${storageText}" must be a whole number of GiB from 20 (gp3's minimum) to 65536`,
    );
  }

  const migrationSnapshotId = str(node, 'migrationSnapshotId');
  if (migrationSnapshotId !== undefined && !/^snap-[0-9a-f]{8,17}$/.test(migrationSnapshotId)) {
    throw new Error(
      `context migrationSnapshotId="${migrationSnapshotId}" is not a snapshot id like snap-0123456789abcdef0`,
    );
  }

  return {
    availabilityZones,
    brokers,
    dbInstanceType,
    multiAz: bool(node, 'multiAz', false),
    dbDeletionProtection: bool(node, 'dbDeletionProtection', true),
    dbStorageGiB,
    ...(migrationSnapshotId !== undefined && { migrationSnapshotId }),
  };
}

/**
 * -c availabilityZones and the remembered ones, normalized ("a, b" is "a,b"); a given list that
 * differs from the remembered one is refused: other zones would replace the subnets, every broker
 * and the database's subnet group.
 */
function rememberedZones(node: Node, stackName: string): { given?: string; remembered?: string } {
  const key = rememberedKey(stackName, Remembered.availabilityZones);
  const normalize = (text: string | undefined) =>
    text
      ?.split(',')
      .map((z) => z.trim())
      .join(',');
  const given = normalize(str(node, 'availabilityZones'));
  const remembered = normalize(str(node, key));
  if (given !== undefined && remembered !== undefined && given !== remembered) {
    throw new Error(
      `context availabilityZones=${given}, but stack ${stackName}'s subnets and brokers are in ${remembered} ` +
        `(cdk.context.json: ${key}). Other zones would REPLACE the subnets, the brokers and the database's subnet ` +
        `group. Leave out -c availabilityZones to keep ${remembered}; for other zones deploy a new stack ` +
        `(-c stackName=${stackName}2) and move the data (minnow migrate); if this stack was never deployed with ` +
        `them, npx cdk context --reset ${key}.`,
    );
  }
  return { ...(given !== undefined && { given }), ...(remembered !== undefined && { remembered }) };
}

/** What bin/minnow.ts remembers of a cluster (see Remembered): a later deploy may leave them out. */
export function clusterToRemember(stackName: string, pg: PostgresConfig): Record<string, string | number> {
  return {
    [rememberedKey(stackName, Remembered.storage)]: StorageMode.Postgres,
    [rememberedKey(stackName, Remembered.availabilityZones)]: pg.availabilityZones.join(','),
    [rememberedKey(stackName, Remembered.brokers)]: pg.brokers,
  };
}
