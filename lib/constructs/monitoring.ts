import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../monitoring-metrics';

export interface MonitoringProps {
  /** Days both log groups keep their events (context logRetentionDays). */
  readonly retentionDays: number;
}

/**
 * Where the CloudWatch agent on the instance sends what it collects: the broker's journal (a log
 * group of its own) and the scraped Prometheus series as embedded-metric-format events (a second
 * group, which the dashboard's per-group lag table queries with Logs Insights). CloudFormation
 * creates both with a retention, so the agent needs neither logs:CreateLogGroup nor
 * logs:PutRetentionPolicy, and `cdk destroy` does not leave groups that keep logs forever.
 */
export class Monitoring extends Construct {
  readonly brokerLogGroup: logs.LogGroup;
  readonly metricsLogGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const retention = props.retentionDays as logs.RetentionDays; // validated in readConfig
    this.brokerLogGroup = new logs.LogGroup(this, 'BrokerLogs', { retention });
    this.metricsLogGroup = new logs.LogGroup(this, 'MetricEvents', { retention });
  }

  /** What the agent does and nothing more: write to these two groups, put metrics into `minnow`. */
  grantAgent(role: iam.Role): void {
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams'],
        resources: [this.brokerLogGroup.logGroupArn, this.metricsLogGroup.logGroupArn],
      }),
    );
    const putMetricData = new iam.PolicyStatement({
      actions: ['cloudwatch:PutMetricData'],
      resources: ['*'],
      conditions: { StringEquals: { 'cloudwatch:namespace': METRICS_NAMESPACE } },
    });
    role.addToPolicy(putMetricData);
    Validations.of(role.node.findChild('DefaultPolicy')).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'cloudwatch:PutMetricData has no resource-level permissions (Service Authorization Reference); ' +
        `the statement is limited to the ${METRICS_NAMESPACE} namespace by the cloudwatch:namespace condition.`,
    });
  }
}
