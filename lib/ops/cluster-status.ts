import { DescribeAlarmsCommand, type MetricAlarm } from '@aws-sdk/client-cloudwatch';
import type { OpsClients, OpsRuntime } from './clients';
import { OpsError } from './errors';
import { databaseStatusHint, describeDatabase, type DatabaseReport } from './database';
import { type ImageStatus, formatImageLines, imageStatus } from './image';
import { describeInstance, type InstanceInfo } from './instance';
import type { ClusterOutputs } from './stack-outputs';
import { creditReport, formatCredits, isBurstable, type CreditReport } from './status';

export interface BrokerReport {
  /** NODE_ID: the position in the InstanceIds output. */
  readonly nodeId: number;
  readonly instance: InstanceInfo;
  /** Running burstable brokers only (a stopped one has no recent datapoints). */
  readonly credits: CreditReport | undefined;
}

export interface ClusterStatusReport {
  readonly kind: 'cluster';
  readonly stackName: string;
  readonly bootstrapServers: string;
  readonly databaseEndpoint: string;
  readonly brokers: readonly BrokerReport[];
  readonly database: DatabaseReport;
  /** The stack's alarms in ALARM (brokers' `<stack>-broker-N-...` and the database's). */
  readonly alarmsInAlarm: ReadonlyArray<{ readonly name: string; readonly reason: string }>;
  /** How many of the stack's alarms are in each state (OK, ALARM, INSUFFICIENT_DATA). */
  readonly alarmStates: Readonly<Record<string, number>>;
  /** The images the brokers run, their age, the pinned one (issue 28). */
  readonly image: ImageStatus;
  /** Things to act on, e.g. "image ami-... is 45 days old: npm run ops -- image --update, then deploy". */
  readonly warnings: readonly string[];
}

export async function getClusterStatus(
  clients: OpsClients,
  runtime: OpsRuntime,
  stackName: string,
  outputs: ClusterOutputs,
  contextFile?: string,
): Promise<ClusterStatusReport> {
  const brokers: BrokerReport[] = [];
  for (const [index, id] of outputs.instanceIds.entries()) {
    const instance = await describeBroker(clients, id);
    const credits =
      instance.state === 'running' && isBurstable(instance.type) ? await creditReport(clients, runtime, id) : undefined;
    brokers.push({ nodeId: index + 1, instance, credits });
  }
  const database = await describeDatabase(clients, runtime, outputs.databaseEndpoint);
  const alarms = await stackAlarms(clients, stackName);
  const alarmStates: Record<string, number> = {};
  for (const a of alarms) alarmStates[a.StateValue ?? '?'] = (alarmStates[a.StateValue ?? '?'] ?? 0) + 1;
  const image = await imageStatus(
    clients,
    runtime,
    stackName,
    brokers.map((b) => b.instance.imageId),
    contextFile,
  );
  return {
    kind: 'cluster',
    stackName,
    bootstrapServers: outputs.bootstrapServers,
    databaseEndpoint: outputs.databaseEndpoint,
    brokers,
    database,
    alarmsInAlarm: alarms
      .filter((a) => a.StateValue === 'ALARM')
      .map((a) => ({ name: a.AlarmName ?? '?', reason: a.StateReason ?? '' })),
    alarmStates,
    image,
    warnings: [...image.warnings],
  };
}

/**
 * One broker gone (terminated outside CloudFormation: EC2 forgets it after about an hour) should
 * not hide the others: it shows as "not found".
 */
async function describeBroker(clients: OpsClients, id: string): Promise<InstanceInfo> {
  try {
    return await describeInstance(clients, id);
  } catch (err) {
    const name = (err as { name?: string }).name ?? '';
    if (name !== 'InvalidInstanceID.NotFound' && !(err instanceof OpsError)) throw err;
    const unknown = { type: '-', architecture: '-', publicIp: undefined, imageId: undefined };
    return { id, state: 'not found', availabilityZone: undefined, ...unknown };
  }
}

/** Every alarm named `<stack>-...`, page by page (at most 100 per page; 9 brokers have more). */
async function stackAlarms(clients: OpsClients, stackName: string): Promise<MetricAlarm[]> {
  const alarms: MetricAlarm[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < 20; page++) {
    const response = await clients.cloudwatch.send(
      new DescribeAlarmsCommand({
        AlarmNamePrefix: `${stackName}-`,
        MaxRecords: 100,
        ...(nextToken && { NextToken: nextToken }),
      }),
    );
    alarms.push(...(response.MetricAlarms ?? []));
    nextToken = response.NextToken;
    if (!nextToken) break;
  }
  return alarms;
}

const GIB = 1024 ** 3;

export function formatClusterStatus(r: ClusterStatusReport): string {
  const lines = [
    `stack              ${r.stackName}  (storage=postgres: ${r.brokers.length} brokers, RDS PostgreSQL)`,
    `bootstrap servers  ${r.bootstrapServers}`,
  ];
  for (const b of r.brokers) {
    const i = b.instance;
    const details =
      i.state === 'not found'
        ? ''
        : `  ${i.type} (${i.architecture})  ${i.availabilityZone ?? '-'}  ${i.publicIp ?? '-'}`;
    lines.push(`broker ${String(b.nodeId).padEnd(12)}${i.id}  ${i.state}${details}`);
    const credits = i.state === 'running' ? formatCredits(b.credits, i.type) : undefined;
    if (credits !== undefined) lines.push(`  CPU credits      ${credits}`);
  }
  const db = r.database;
  const zones = db.multiAz
    ? `Multi-AZ (${db.availabilityZone ?? '?'}, standby ${db.secondaryAvailabilityZone ?? '?'})`
    : `single-AZ (${db.availabilityZone ?? '?'})`;
  lines.push(`database           ${db.id}  ${db.status}  ${db.instanceClass}  ${zones}`);
  const hint = databaseStatusHint(db);
  if (hint !== undefined) lines.push(`  ${db.status}: ${hint}`);
  lines.push(`  endpoint         ${r.databaseEndpoint}  (${db.engine})`);
  const free =
    db.freeStorageBytes !== undefined
      ? `${(db.freeStorageBytes / GIB).toFixed(1)} GiB free`
      : 'free: no datapoints yet';
  lines.push(`  storage          ${db.allocatedGiB !== undefined ? `${db.allocatedGiB} GiB, ` : ''}${free}`);
  const pending = Object.entries(db.pendingModifications).map(([k, v]) => `${k}=${v}`);
  lines.push(`  pending changes  ${pending.length === 0 ? 'none' : pending.join(', ')}`);
  const total = Object.values(r.alarmStates).reduce((s, n) => s + n, 0);
  const states = Object.entries(r.alarmStates)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  lines.push(
    total === 0
      ? 'alarms             none found'
      : `alarms             ${r.alarmsInAlarm.length} of ${total} in ALARM  (${states})`,
  );
  for (const a of r.alarmsInAlarm) lines.push(`  ALARM            ${a.name}`);
  lines.push(...formatImageLines(r.image));
  lines.push(...r.warnings.map((w) => `warning: ${w}`));
  return lines.join('\n');
}
