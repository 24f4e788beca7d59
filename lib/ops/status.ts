import { DescribeAlarmsCommand, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import type { OpsClients, OpsRuntime } from './clients';
import { type ImageStatus, formatImageLines, imageStatus } from './image';
import { describeInstance, type InstanceInfo } from './instance';
import { readStackOutputs } from './stack-outputs';

export interface CreditReport {
  /** Most recent CPUCreditBalance datapoint. */
  readonly balance: number;
  /** Least-squares slope over the window, credits per hour (negative: draining). */
  readonly trendPerHour: number;
  /** Hours until 0 at the current trend, when draining. */
  readonly hoursToEmpty: number | undefined;
  readonly points: number;
}

export interface StatusReport {
  readonly stackName: string;
  readonly bootstrapServers: string;
  readonly dataVolumeId: string;
  readonly instance: InstanceInfo;
  /** Undefined for non-burstable types, or before the first datapoint (about 5 minutes after launch). */
  readonly credits: CreditReport | undefined;
  readonly alarms: ReadonlyArray<{ readonly name: string; readonly state: string }>;
  /** The image the instance runs, its age, the pinned one (issue 28). */
  readonly image: ImageStatus;
  /** Things to act on, e.g. "image ami-... is 45 days old: npm run ops -- image --update, then deploy". */
  readonly warnings: readonly string[];
}

const TREND_WINDOW_MS = 3 * 60 * 60_000;
/** T-family types earn CPU credits (t2, t3, t3a, t4g; not trn1). */
export const isBurstable = (type: string): boolean => /^t\d+[a-z]*\./.test(type);

/** `contextFile`: cdk.context.json, for the pinned image; without it only the running image is judged. */
export async function getStatus(
  clients: OpsClients,
  runtime: OpsRuntime,
  stackName: string,
  contextFile?: string,
): Promise<StatusReport> {
  const outputs = await readStackOutputs(clients, stackName);
  const instance = await describeInstance(clients, outputs.instanceId);
  const credits = isBurstable(instance.type) ? await creditReport(clients, runtime, outputs.instanceId) : undefined;
  const alarms = await clients.cloudwatch.send(new DescribeAlarmsCommand({ AlarmNamePrefix: `${stackName}-` }));
  const image = await imageStatus(clients, runtime, stackName, [instance.imageId], contextFile);
  return {
    stackName,
    bootstrapServers: outputs.bootstrapServers,
    dataVolumeId: outputs.dataVolumeId,
    instance,
    credits,
    alarms: (alarms.MetricAlarms ?? []).map((a) => ({ name: a.AlarmName ?? '?', state: a.StateValue ?? '?' })),
    image,
    warnings: [...image.warnings],
  };
}

export async function creditReport(
  clients: OpsClients,
  runtime: OpsRuntime,
  instanceId: string,
): Promise<CreditReport | undefined> {
  const end = runtime.now();
  const response = await clients.cloudwatch.send(
    new GetMetricDataCommand({
      StartTime: new Date(end.getTime() - TREND_WINDOW_MS),
      EndTime: end,
      MetricDataQueries: [
        {
          Id: 'balance',
          MetricStat: {
            Metric: {
              Namespace: 'AWS/EC2',
              MetricName: 'CPUCreditBalance',
              Dimensions: [{ Name: 'InstanceId', Value: instanceId }],
            },
            Period: 300,
            Stat: 'Average',
          },
        },
      ],
    }),
  );
  const result = response.MetricDataResults?.find((r) => r.Id === 'balance');
  const points = (result?.Timestamps ?? [])
    .map((t, i) => ({ t: new Date(t).getTime(), v: result?.Values?.[i] }))
    .filter((p): p is { t: number; v: number } => typeof p.v === 'number')
    .sort((a, b) => a.t - b.t);
  const latest = points[points.length - 1];
  if (!latest) return undefined;
  const trendPerHour = slopePerHour(points);
  return {
    balance: latest.v,
    trendPerHour,
    hoursToEmpty: trendPerHour < 0 ? latest.v / -trendPerHour : undefined,
    points: points.length,
  };
}

/** Least-squares slope of value over time, per hour; 0 with fewer than two points. */
export function slopePerHour(points: ReadonlyArray<{ t: number; v: number }>): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  const mv = points.reduce((s, p) => s + p.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.v - mv);
    den += (p.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 3_600_000;
}

/** The balance and its trend, "no datapoints yet", or undefined for a type without credits. */
export function formatCredits(c: CreditReport | undefined, instanceType: string): string | undefined {
  if (c) {
    const sign = c.trendPerHour >= 0 ? '+' : '';
    const empty = c.hoursToEmpty !== undefined ? `, empty in ~${c.hoursToEmpty.toFixed(1)} h at this rate` : '';
    return `${c.balance.toFixed(1)}  (${sign}${c.trendPerHour.toFixed(1)}/h over the last 3 h${empty})`;
  }
  return isBurstable(instanceType) ? 'no datapoints yet (CloudWatch reports every 5 minutes)' : undefined;
}

export function formatStatus(r: StatusReport): string {
  const i = r.instance;
  const lines = [
    `stack              ${r.stackName}`,
    `bootstrap servers  ${r.bootstrapServers}`,
    `instance           ${i.id}  ${i.state}  ${i.type} (${i.architecture})  ${i.availabilityZone ?? ''}`.trimEnd(),
    `public address     ${i.publicIp ?? '-'}`,
    ...(r.image.running.length > 0 ? formatImageLines(r.image) : [`image              ${i.imageId ?? '-'}`]),
    `data volume        ${r.dataVolumeId}`,
  ];
  const credits = formatCredits(r.credits, i.type);
  if (credits !== undefined) lines.push(`CPU credits        ${credits}`);
  lines.push(`alarms             ${r.alarms.length === 0 ? 'none found' : ''}`.trimEnd());
  for (const a of r.alarms) lines.push(`  ${a.state.padEnd(17)} ${a.name}`);
  lines.push(...r.warnings.map((w) => `warning: ${w}`));
  return lines.join('\n');
}
