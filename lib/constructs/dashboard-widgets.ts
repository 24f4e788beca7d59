import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { baselineCpuPercent, isBurstable } from '../burstable';
import { BrokerMetric, COUNTED_APIS, brokerMetric } from '../monitoring-metrics';

/**
 * Widget builders both dashboards use: the single instance's (dashboard.ts) and the cluster's
 * (cluster-dashboard.ts). Each broker's series are told apart by an id suffix (math expression ids
 * must be unique within one graph) and a label prefix; empty for the single instance.
 */
export const DASHBOARD_PERIOD = Duration.minutes(5);

/** Bytes per second from a 5-minute Sum metric; `id` must be unique within one graph. */
export function perSecond(id: string, metric: cloudwatch.IMetric, label: string): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: `${id} / PERIOD(${id})`,
    usingMetrics: { [id]: metric },
    label,
    period: DASHBOARD_PERIOD,
  });
}

export interface CpuWidgetProps {
  readonly title: string;
  readonly left: cloudwatch.IMetric[];
  /** Without a "db." prefix: RDS's burstable classes earn credits like the EC2 type of that name. */
  readonly instanceType: string;
  readonly width: number;
  /** @default - no right axis */
  readonly right?: cloudwatch.IMetric[];
  /** Lines drawn after the baseline (alarm thresholds). @default - none */
  readonly annotations?: cloudwatch.HorizontalAnnotation[];
}

/** CPUUtilization on a 0-100 axis with the burstable baseline drawn (lib/burstable.ts): above it, credits drain. */
export function cpuUtilizationWidget(props: CpuWidgetProps): cloudwatch.GraphWidget {
  const baseline = baselineCpuPercent(props.instanceType);
  const annotations = [
    ...(isBurstable(props.instanceType) && baseline !== undefined
      ? [{ value: baseline, label: `baseline ${baseline} %: above it, credits drain` }]
      : []),
    ...(props.annotations ?? []),
  ];
  return new cloudwatch.GraphWidget({
    title: props.title,
    left: props.left,
    ...(props.right && props.right.length > 0 && { right: props.right }),
    leftYAxis: { min: 0, max: 100 },
    ...(annotations.length > 0 && { leftAnnotations: annotations }),
    width: props.width,
  });
}

/** Which broker a series belongs to: a suffix for expression ids and a prefix for labels. */
export interface SeriesOf {
  readonly instanceId: string;
  /** @default '' */
  readonly idSuffix?: string;
  /** @default '' */
  readonly labelPrefix?: string;
}

/** Produce and Fetch requests per second, from the broker's EMF metrics. */
export function requestRates(of: SeriesOf): cloudwatch.MathExpression[] {
  return COUNTED_APIS.map((api) =>
    perSecond(
      `req${api}${of.idSuffix ?? ''}`,
      brokerMetric(of.instanceId, BrokerMetric.Requests, 'Sum', { api }),
      `${of.labelPrefix ?? ''}${api}`,
    ),
  );
}

/** Record bytes per second produced in or fetched out, from the broker's EMF metrics. */
export function recordBytes(of: SeriesOf, direction: 'in' | 'out'): cloudwatch.MathExpression {
  const name = direction === 'in' ? BrokerMetric.BytesIn : BrokerMetric.BytesOut;
  return perSecond(
    `bytes${direction === 'in' ? 'In' : 'Out'}${of.idSuffix ?? ''}`,
    brokerMetric(of.instanceId, name, 'Sum'),
    `${of.labelPrefix ?? ''}${direction}`,
  );
}

/** Error responses of every API per second. */
export function errorRate(of: SeriesOf): cloudwatch.MathExpression {
  return perSecond(
    `errors${of.idSuffix ?? ''}`,
    brokerMetric(of.instanceId, BrokerMetric.RequestErrors, 'Sum'),
    `${of.labelPrefix ?? ''}errors`,
  );
}

/** Every alarm's state in one row, when there are any. */
export function alarmStatusWidgets(alarms: readonly cloudwatch.IAlarm[] | undefined): cloudwatch.IWidget[] {
  if (!alarms || alarms.length === 0) return [];
  return [new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms], width: 24 })];
}
