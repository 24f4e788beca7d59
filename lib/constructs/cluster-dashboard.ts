import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as rds from 'aws-cdk-lib/aws-rds';
import { Construct } from 'constructs';
import { isBurstable } from '../burstable';
import type { CpuCreditMode } from '../config';
import { BrokerMetric, MEASURED_PATHS, brokerMetric, diskUsedPercent, memUsedPercent } from '../monitoring-metrics';
import { DISK_USED_ALARM_PERCENT, MEMORY_USED_ALARM_PERCENT, instanceMetric } from './alarms';
import {
  DASHBOARD_PERIOD,
  alarmStatusWidgets,
  cpuUtilizationWidget,
  errorRate,
  perSecond,
  recordBytes,
  requestRates,
  type SeriesOf,
} from './dashboard-widgets';
import { DATABASE_CONNECTIONS_ALARM, DATABASE_CPU_ALARM_PERCENT, DATABASE_FREE_STORAGE_ALARM_BYTES } from './database';

export interface ClusterDashboardProps {
  /** Every broker, node ids 1..N. */
  readonly brokers: readonly { readonly nodeId: number; readonly instanceId: string }[];
  /** The brokers' EC2 type (all the same). */
  readonly instanceType: string;
  /** @default 'standard' */
  readonly cpuCredits?: CpuCreditMode;
  readonly database: rds.IDatabaseInstance;
  /** e.g. db.t4g.micro */
  readonly databaseInstanceType: string;
  /** The database's allocated storage: the ceiling of the free-storage graph. */
  readonly databaseStorageGiB: number;
  /** Every alarm of the stack, shown in one alarm-status widget. */
  readonly alarms: readonly cloudwatch.IAlarm[];
}

/**
 * The cluster on one page (storage=postgres): each broker's credits, CPU against the burstable
 * baseline, network, Kafka traffic, errors, consumer lag, memory and disks as one line per broker, so a broker that carries the load or
 * drains its credits alone stands out; then the database, which every request goes through (a
 * db.t4g class is burstable too); then every alarm. The single instance's dashboard is dashboard.ts.
 */
export class ClusterDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ClusterDashboardProps) {
    super(scope, id);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.days(1) });
    const series: SeriesOf[] = props.brokers.map((b) => ({
      instanceId: b.instanceId,
      idSuffix: String(b.nodeId),
      labelPrefix: `broker ${b.nodeId} `,
    }));
    this.addBrokerHostWidgets(props);
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Kafka requests (/s), per broker',
        left: series.flatMap(requestRates),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Record bytes produced in (/s), per broker',
        left: series.map((s) => recordBytes(s, 'in')),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Record bytes fetched out (/s), per broker',
        left: series.map((s) => recordBytes(s, 'out')),
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Error responses (/s, all APIs), per broker',
        left: series.map(errorRate),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Consumer lag, most lagging group (records), per broker',
        left: props.brokers.map((b) =>
          brokerMetric(b.instanceId, BrokerMetric.ConsumerLagMax, 'Maximum').with({ label: `broker ${b.nodeId}` }),
        ),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Memory and disk used (%), per broker',
        left: props.brokers.flatMap((b) => [
          memUsedPercent(b.instanceId).with({ label: `broker ${b.nodeId} memory` }),
          ...MEASURED_PATHS.map((p) =>
            diskUsedPercent(b.instanceId, p).with({ label: `broker ${b.nodeId} disk ${p}` }),
          ),
        ]),
        leftYAxis: { min: 0, max: 100 },
        leftAnnotations: [
          { value: MEMORY_USED_ALARM_PERCENT, label: 'memory alarm' },
          { value: DISK_USED_ALARM_PERCENT, label: 'disk alarms' },
        ],
        width: 8,
      }),
    );
    this.addDatabaseWidgets(props);
    this.dashboard.addWidgets(...alarmStatusWidgets(props.alarms));
  }

  /** CPU credits, CPU against the baseline, network in and out: one line per broker. */
  private addBrokerHostWidgets(props: ClusterDashboardProps): void {
    const each = (name: string, statistic: string): cloudwatch.IMetric[] =>
      props.brokers.map((b) => instanceMetric(b.instanceId, name, statistic).with({ label: `broker ${b.nodeId}` }));
    const burstable = isBurstable(props.instanceType);
    const row: cloudwatch.IWidget[] = [];
    if (burstable) {
      row.push(
        new cloudwatch.GraphWidget({
          title:
            props.cpuCredits === 'unlimited'
              ? 'CPU credit balance (left), surplus credits spent (right), per broker'
              : 'CPU credit balance, per broker',
          left: each('CPUCreditBalance', 'Average'),
          ...(props.cpuCredits === 'unlimited' && { right: each('CPUSurplusCreditBalance', 'Maximum') }),
          width: 12,
        }),
      );
    }
    row.push(
      cpuUtilizationWidget({
        title: 'CPU utilization (%), per broker',
        left: each('CPUUtilization', 'Average'),
        instanceType: props.instanceType,
        width: burstable ? 12 : 24,
      }),
    );
    this.dashboard.addWidgets(...row);
    const network = (name: 'NetworkIn' | 'NetworkOut', idPrefix: string): cloudwatch.IMetric[] =>
      props.brokers.map((b) =>
        perSecond(`${idPrefix}${b.nodeId}`, instanceMetric(b.instanceId, name, 'Sum'), `broker ${b.nodeId}`),
      );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Network in (bytes/s), per broker',
        left: network('NetworkIn', 'netIn'),
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Network out (bytes/s), per broker',
        left: network('NetworkOut', 'netOut'),
        width: 12,
      }),
    );
  }

  /** The RDS instance (AWS/RDS, DBInstanceIdentifier): CPU and credits, storage, connections, I/O, memory. */
  private addDatabaseWidgets(props: ClusterDashboardProps): void {
    const db = (name: string, statistic: string, label: string): cloudwatch.Metric =>
      props.database.metric(name, { statistic, period: DASHBOARD_PERIOD, label });
    // RDS's burstable classes earn credits like the EC2 type of the same name (db.t4g.micro: t4g.micro).
    const ec2Type = props.databaseInstanceType.replace(/^db\./, '');
    const burstable = isBurstable(ec2Type);
    const storageBytes = props.databaseStorageGiB * 1024 ** 3;
    this.dashboard.addWidgets(
      cpuUtilizationWidget({
        title: burstable ? 'Database CPU (%, left), CPU credit balance (right)' : 'Database CPU (%)',
        left: [db('CPUUtilization', 'Average', 'CPU average'), db('CPUUtilization', 'Maximum', 'CPU maximum')],
        instanceType: ec2Type,
        width: 8,
        ...(burstable && { right: [db('CPUCreditBalance', 'Minimum', 'credit balance')] }),
        annotations: [{ value: DATABASE_CPU_ALARM_PERCENT, label: 'CPU alarm' }],
      }),
      new cloudwatch.GraphWidget({
        title: `Database free storage (bytes) of ${props.databaseStorageGiB} GiB`,
        left: [db('FreeStorageSpace', 'Minimum', 'free storage')],
        leftYAxis: { min: 0, max: storageBytes },
        leftAnnotations: [{ value: DATABASE_FREE_STORAGE_ALARM_BYTES, label: 'free storage alarm' }],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Database connections',
        left: [db('DatabaseConnections', 'Maximum', 'connections')],
        leftYAxis: { min: 0 },
        leftAnnotations: [{ value: DATABASE_CONNECTIONS_ALARM, label: 'connections alarm' }],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Database IOPS',
        left: [db('ReadIOPS', 'Average', 'read'), db('WriteIOPS', 'Average', 'write')],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Database I/O latency (seconds)',
        left: [db('ReadLatency', 'Average', 'read'), db('WriteLatency', 'Average', 'write')],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Database freeable memory (bytes)',
        left: [db('FreeableMemory', 'Minimum', 'freeable memory')],
        leftYAxis: { min: 0 },
        width: 8,
      }),
    );
  }
}
