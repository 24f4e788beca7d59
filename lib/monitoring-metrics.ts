import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

/**
 * The custom metrics the CloudWatch agent publishes (broker/deploy/cloudwatch-agent.json), and the
 * only ones: each costs $0.30/month beyond the free tier's 10, so the agent publishes these 10 and
 * leaves everything else (per-group lag, per-API errors) in the log group for Logs Insights.
 * Every metric has the InstanceId dimension (the agent appends it; the scrape config labels the
 * broker's series with it), so alarms and graphs follow a replaced instance with the template.
 */
export const METRICS_NAMESPACE = 'minnow';

/** Where the broker serves Prometheus text (MINNOW_METRICS_LISTENER): loopback only, no rule opens it. */
export const METRICS_LISTENER = '127.0.0.1:9464';

/** The broker's Prometheus series that become CloudWatch metrics (counters arrive as per-scrape deltas). */
export const BrokerMetric = {
  /** Requests, with an `api` dimension: Produce and Fetch only (2 metrics). */
  Requests: 'minnow_requests_total',
  /** Error responses of every API and error, summed into one metric. */
  RequestErrors: 'minnow_request_errors_total',
  BytesIn: 'minnow_bytes_in_total',
  BytesOut: 'minnow_bytes_out_total',
  ConsumerLagMax: 'minnow_consumer_group_lag_max',
  /** Also the liveness signal: one datapoint per successful scrape. */
  DatabaseBytes: 'minnow_database_bytes',
} as const;

/** The APIs whose request counts become metrics. */
export const COUNTED_APIS = ['Produce', 'Fetch'] as const;

/** Host metrics from the agent's mem and disk plugins. */
export const HostMetric = { MemUsedPercent: 'mem_used_percent', DiskUsedPercent: 'disk_used_percent' } as const;

/** The file systems whose use is measured: the root disk and the data volume (both XFS on AL2023). */
export const MEASURED_PATHS = ['/', '/data'] as const;
const FS_TYPE = 'xfs';

/** Every custom metric, for the docs and the cost: names with their extra dimension. */
export function customMetricCount(): number {
  return COUNTED_APIS.length + (Object.keys(BrokerMetric).length - 1) + 1 + MEASURED_PATHS.length;
}

const PERIOD = Duration.minutes(5);

export function brokerMetric(
  instanceId: string,
  name: string,
  statistic: string,
  extraDimensions: Record<string, string> = {},
  period: Duration = PERIOD,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { InstanceId: instanceId, ...extraDimensions },
    statistic,
    period,
  });
}

export function memUsedPercent(instanceId: string): cloudwatch.Metric {
  return brokerMetric(instanceId, HostMetric.MemUsedPercent, 'Maximum');
}

/** disk_used_percent of one mount; the agent drops the device (nvme1n1 today, xvdf on t2) but keeps fstype. */
export function diskUsedPercent(instanceId: string, mountPath: string): cloudwatch.Metric {
  return brokerMetric(instanceId, HostMetric.DiskUsedPercent, 'Maximum', { path: mountPath, fstype: FS_TYPE });
}
