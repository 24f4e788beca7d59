import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { creditBalanceLowThreshold, isBurstable } from '../burstable';
import type { CpuCreditMode } from '../config';

export interface AlarmsProps {
  readonly instanceId: string;
  /** Decides which alarms exist (credit alarms only for burstable types) and the balance threshold. */
  readonly instanceType: string;
  /** @default 'standard' */
  readonly cpuCredits?: CpuCreditMode;
  /** @default - no subscription; subscribe to the topic yourself */
  readonly alarmEmail?: string;
}

/** One EC2 metric of this instance. */
export function instanceMetric(
  instanceId: string,
  metricName: string,
  statistic: string,
  period: Duration = Duration.minutes(5),
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: 'AWS/EC2',
    metricName,
    dimensionsMap: { InstanceId: instanceId },
    statistic,
    period,
  });
}

/**
 * The alarms worth waking up for on a small burstable host, all published to one SNS topic:
 * credits running low (throttling to baseline is next), surplus credits being billed (unlimited
 * mode), and a failed system status check, which also triggers EC2's recover action.
 * Alarm names start with the stack name, so `npm run ops -- status` finds them by prefix.
 */
export class Alarms extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    const prefix = Stack.of(this).stackName;
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'minnow alarms', enforceSSL: true });
    // No SSE: alarm notifications carry no data, CloudWatch cannot publish to a topic encrypted with
    // the aws/sns key, and a customer-managed KMS key would cost $1/month.
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const notify = new actions.SnsAction(this.topic);

    if (isBurstable(props.instanceType)) {
      const threshold = creditBalanceLowThreshold(props.instanceType);
      this.add(
        new cloudwatch.Alarm(this, 'CpuCreditBalanceLow', {
          alarmName: `${prefix}-cpu-credit-balance-low`,
          alarmDescription:
            `CPU credit balance below ${threshold} (10 % of what a ${props.instanceType} can bank). Soon the broker is ` +
            'throttled to baseline: find the load, or scale up (npm run ops -- scale --to t3.small).',
          metric: instanceMetric(props.instanceId, 'CPUCreditBalance', 'Minimum'),
          threshold,
          comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
          evaluationPeriods: 3,
          // A new t3 starts with 0 credits and no datapoints yet: no data is not an emergency.
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
        notify,
        true,
      );
      if (props.cpuCredits === 'unlimited') {
        this.add(
          new cloudwatch.Alarm(this, 'CpuSurplusCreditsCharged', {
            alarmName: `${prefix}-cpu-surplus-credits-charged`,
            alarmDescription:
              'Unlimited mode is billing surplus CPU credits: the load is above baseline with no credits left. ' +
              'A bigger instance type may be cheaper.',
            metric: instanceMetric(props.instanceId, 'CPUSurplusCreditsCharged', 'Sum'),
            threshold: 0,
            comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluationPeriods: 1,
            treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
          }),
          notify,
          false,
        );
      }
    }

    const systemCheck = new cloudwatch.Alarm(this, 'StatusCheckFailedSystem', {
      alarmName: `${prefix}-status-check-failed-system`,
      alarmDescription:
        'The AWS host under the instance failed its status check; EC2 recovers the instance onto new hardware ' +
        '(same id, EIP and EBS volumes).',
      metric: instanceMetric(props.instanceId, 'StatusCheckFailed_System', 'Maximum', Duration.minutes(1)),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 2,
      treatMissingData: cloudwatch.TreatMissingData.MISSING,
    });
    systemCheck.addAlarmAction(new actions.Ec2Action(actions.Ec2InstanceAction.RECOVER));
    this.add(systemCheck, notify, true);
  }

  private add(alarm: cloudwatch.Alarm, notify: actions.SnsAction, notifyOk: boolean): void {
    alarm.addAlarmAction(notify);
    if (notifyOk) alarm.addOkAction(notify);
    this.alarms.push(alarm);
  }
}
