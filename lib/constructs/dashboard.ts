import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
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
} from './dashboard-widgets';

export interface BrokerDashboardProps {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly dataVolumeId: string;
  /** @default 'standard' */
  readonly cpuCredits?: CpuCreditMode;
  /** Shown in an alarm-status widget. @default - none */
  readonly alarms?: cloudwatch.IAlarm[];
  /** The agent's embedded-metric-format log group: per-group consumer lag, queried with Logs Insights. */
  readonly metricsLogGroupName: string;
  /** Drawn as the ceiling of the database-size graph. */
  readonly dataVolumeGiB: number;
}

function volumeMetric(volumeId: string, metricName: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: 'AWS/EBS',
    metricName,
    dimensionsMap: { VolumeId: volumeId },
    statistic: 'Sum',
    period: DASHBOARD_PERIOD,
  });
}

/**
 * One page for the questions a t3.micro raises: how many credits are left and how fast they go,
 * CPU against the baseline, network in/out, and the data volume's throughput (EBS has its own
 * burst bucket on small Nitro types, shown as EBSByteBalance%).
 */
export class BrokerDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: BrokerDashboardProps) {
    super(scope, id);
    const m = (name: string, statistic: string): cloudwatch.Metric => instanceMetric(props.instanceId, name, statistic);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.days(1),
    });
    const burstable = isBurstable(props.instanceType);

    const row1: cloudwatch.IWidget[] = [];
    if (burstable) {
      const right = [m('CPUCreditUsage', 'Sum')];
      if (props.cpuCredits === 'unlimited') {
        right.push(m('CPUSurplusCreditBalance', 'Maximum'), m('CPUSurplusCreditsCharged', 'Sum'));
      }
      row1.push(
        new cloudwatch.GraphWidget({
          title: 'CPU credits: balance (left), used per 5 min (right)',
          left: [m('CPUCreditBalance', 'Average')],
          right,
          width: 12,
        }),
      );
    }
    row1.push(
      cpuUtilizationWidget({
        title: 'CPU utilization (%)',
        left: [m('CPUUtilization', 'Average'), m('CPUUtilization', 'Maximum')],
        instanceType: props.instanceType,
        width: burstable ? 12 : 24,
      }),
    );

    const row2: cloudwatch.IWidget[] = [
      new cloudwatch.GraphWidget({
        title: 'Network (bytes/s)',
        left: [perSecond('netIn', m('NetworkIn', 'Sum'), 'in'), perSecond('netOut', m('NetworkOut', 'Sum'), 'out')],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Data volume throughput (bytes/s); EBS burst balance (%)',
        left: [
          perSecond('volWrite', volumeMetric(props.dataVolumeId, 'VolumeWriteBytes'), 'write'),
          perSecond('volRead', volumeMetric(props.dataVolumeId, 'VolumeReadBytes'), 'read'),
        ],
        right: [m('EBSByteBalance%', 'Minimum')],
        rightYAxis: { min: 0, max: 100 },
        width: 12,
      }),
    ];
    this.dashboard.addWidgets(...row1);
    this.dashboard.addWidgets(...row2);
    this.addBrokerWidgets(props);
    this.dashboard.addWidgets(...alarmStatusWidgets(props.alarms));
  }

  /** The broker's own metrics (the CloudWatch agent scrapes them) and the host's memory and disks. */
  private addBrokerWidgets(props: BrokerDashboardProps): void {
    const b = (name: string, statistic: string, extra: Record<string, string> = {}): cloudwatch.Metric =>
      brokerMetric(props.instanceId, name, statistic, extra);
    const volumeBytes = props.dataVolumeGiB * 1024 ** 3;
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Kafka requests (/s)',
        left: requestRates({ instanceId: props.instanceId }),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Record bytes (/s): produced in, fetched out',
        left: [
          recordBytes({ instanceId: props.instanceId }, 'in'),
          recordBytes({ instanceId: props.instanceId }, 'out'),
        ],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Error responses (/s, all APIs)',
        left: [errorRate({ instanceId: props.instanceId })],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Consumer lag, most lagging group (records)',
        left: [b(BrokerMetric.ConsumerLagMax, 'Maximum')],
        width: 8,
      }),
      // Per-group lag is in the agent's EMF events, not a metric: a metric per group would cost
      // $0.30/month each. Logs Insights reads it for the query's cost only when the widget is viewed.
      new cloudwatch.LogQueryWidget({
        title: 'Consumer lag by group (latest scrape)',
        logGroupNames: [props.metricsLogGroupName],
        view: cloudwatch.LogQueryVisualizationType.TABLE,
        queryLines: [
          'filter ispresent(minnow_consumer_group_lag)',
          'stats latest(minnow_consumer_group_lag) as lag by group',
          'sort lag desc',
          'limit 50',
        ],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `Database size (bytes) against the ${props.dataVolumeGiB} GiB data volume`,
        left: [b(BrokerMetric.DatabaseBytes, 'Maximum')],
        leftYAxis: { min: 0, max: volumeBytes },
        leftAnnotations: [{ value: volumeBytes, label: `volume size ${props.dataVolumeGiB} GiB` }],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Memory and disk used (%)',
        left: [
          memUsedPercent(props.instanceId).with({ label: 'memory' }),
          ...MEASURED_PATHS.map((p) => diskUsedPercent(props.instanceId, p).with({ label: `disk ${p}` })),
        ],
        leftYAxis: { min: 0, max: 100 },
        leftAnnotations: [
          { value: MEMORY_USED_ALARM_PERCENT, label: 'memory alarm' },
          { value: DISK_USED_ALARM_PERCENT, label: 'disk alarms' },
        ],
        width: 24,
      }),
    );
  }
}
