import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeDBInstancesCommand } from '@aws-sdk/client-rds';
import type { OpsClients, OpsRuntime } from './clients';
import { OpsError } from './errors';

/** The cluster's RDS instance as `ops status` shows it. */
export interface DatabaseReport {
  readonly id: string;
  /** available, backing-up, failing-over, modifying, rebooting, storage-full, stopped, ... */
  readonly status: string;
  readonly instanceClass: string;
  readonly engine: string;
  readonly multiAz: boolean;
  readonly availabilityZone: string | undefined;
  /** Multi-AZ: the standby's zone. */
  readonly secondaryAvailabilityZone: string | undefined;
  readonly allocatedGiB: number | undefined;
  /** Latest FreeStorageSpace datapoint (bytes); undefined before the first one. */
  readonly freeStorageBytes: number | undefined;
  /** DescribeDBInstances' PendingModifiedValues, flattened: what the next reboot or window applies. */
  readonly pendingModifications: Readonly<Record<string, string>>;
}

/**
 * The DB instance identifier is the first label of an RDS endpoint
 * (`<identifier>.<hash>.<region>.rds.amazonaws.com`), so the stack needs no output for it.
 */
export function databaseIdFromEndpoint(endpoint: string): string {
  const id = endpoint.split(':')[0]?.split('.')[0] ?? '';
  if (!/^[a-z][a-z0-9-]*$/i.test(id)) throw new OpsError(`DatabaseEndpoint "${endpoint}" is not an RDS endpoint`);
  return id;
}

export async function describeDatabase(
  clients: OpsClients,
  runtime: OpsRuntime,
  endpoint: string,
): Promise<DatabaseReport> {
  const id = databaseIdFromEndpoint(endpoint);
  const notFound = `RDS instance ${id} not found: was it deleted outside CloudFormation?`;
  const response = await clients.rds.send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: id })).catch((err) => {
    throw (err as { name?: string }).name === 'DBInstanceNotFoundFault' ? new OpsError(notFound, { cause: err }) : err;
  });
  const db = response.DBInstances?.[0];
  if (!db) throw new OpsError(notFound);
  const pending: Record<string, string> = {};
  for (const [key, value] of Object.entries(db.PendingModifiedValues ?? {})) {
    if (value === undefined || value === null) continue;
    pending[key] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return {
    id,
    status: db.DBInstanceStatus ?? 'unknown',
    instanceClass: db.DBInstanceClass ?? 'unknown',
    engine: [db.Engine, db.EngineVersion].filter(Boolean).join(' ') || 'unknown',
    multiAz: db.MultiAZ === true,
    availabilityZone: db.AvailabilityZone,
    secondaryAvailabilityZone: db.SecondaryAvailabilityZone,
    allocatedGiB: db.AllocatedStorage,
    freeStorageBytes: await freeStorage(clients, runtime, id),
    pendingModifications: pending,
  };
}

/** FreeStorageSpace over the last hour (RDS reports every minute); the newest datapoint. */
async function freeStorage(clients: OpsClients, runtime: OpsRuntime, id: string): Promise<number | undefined> {
  const end = runtime.now();
  const response = await clients.cloudwatch.send(
    new GetMetricDataCommand({
      StartTime: new Date(end.getTime() - 60 * 60_000),
      EndTime: end,
      MetricDataQueries: [
        {
          Id: 'free',
          MetricStat: {
            Metric: {
              Namespace: 'AWS/RDS',
              MetricName: 'FreeStorageSpace',
              Dimensions: [{ Name: 'DBInstanceIdentifier', Value: id }],
            },
            Period: 300,
            Stat: 'Minimum',
          },
        },
      ],
    }),
  );
  const result = response.MetricDataResults?.find((r) => r.Id === 'free');
  let newest: { t: number; v: number } | undefined;
  (result?.Timestamps ?? []).forEach((t, i) => {
    const v = result?.Values?.[i];
    const time = new Date(t).getTime();
    if (typeof v === 'number' && (!newest || time > newest.t)) newest = { t: time, v };
  });
  return newest?.v;
}

/** What a status other than available means for the brokers, for the few that matter. */
export function databaseStatusHint(db: Pick<DatabaseReport, 'id' | 'status'>): string | undefined {
  switch (db.status) {
    case 'failing-over':
      return 'the standby takes over (1-2 minutes); the brokers answer retriable errors meanwhile';
    case 'rebooting':
      return 'the brokers answer retriable errors until it is back';
    case 'storage-full':
      return 'every produce fails: grow it with -c dbStorageGiB=<bigger> and deploy';
    case 'stopped':
      return `the brokers cannot serve: aws rds start-db-instance --db-instance-identifier ${db.id}`;
    default:
      return undefined;
  }
}
