import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { creditBalanceLowThreshold, creditsPerHour, isBurstable } from '../burstable';
import type { CpuCreditMode } from '../config';
import { BrokerMetric, MEASURED_PATHS, brokerMetric, diskUsedPercent, memUsedPercent } from '../monitoring-metrics';

export interface AlarmsProps {
  readonly instanceId: string;
  /** Decides which alarms exist (credit alarms only for burstable types) and the balance threshold. */
  readonly instanceType: string;
  /** @default 'standard' */
  readonly cpuCredits?: CpuCreditMode;
  /** @default - no subscription; subscribe to the topic yourself */
  readonly alarmEmail?: string;
  /**
   * Several brokers: the stack's one topic (alarmEmail is then the topic's business, and the stack
   * lets these alarms publish to it: allowAlarmsToPublish). @default - a topic of its own
   */
  readonly topic?: sns.Topic;
  /** Alarm names start with it. @default - the stack name */
  readonly namePrefix?: string;
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
 * mem_used_percent above this for 15 minutes: on a t3.micro (about 950 MiB for Linux) 85 % leaves
 * ~140 MiB for processes (the agent does not count the page cache as used), a few 16 MiB fetch
 * responses in flight, and AL2023 has no swap: the OOM killer is next.
 */
export const MEMORY_USED_ALARM_PERCENT = 85;
/**
 * disk_used_percent above this for 10 minutes. Root (10 GiB): 2 GiB left for journald, the two kept
 * releases and dnf. /data (20 GiB): 4 GiB left, room for SQLite's WAL and checkpoints while you grow
 * the volume (-c dataVolumeGiB, minutes; EBS allows one change per volume every 6 hours).
 */
export const DISK_USED_ALARM_PERCENT = 80;
/** Minutes without one successful scrape of the broker before the liveness alarm fires. */
export const BROKER_SILENT_MINUTES = 10;

/**
 * The alarms worth waking up for on a small burstable host, all published to one SNS topic:
 * credits running low, surplus credits accruing or billed (unlimited mode), memory and disks
 * filling up, the broker not answering its metrics scrape, and failed status checks (the instance
 * check reboots, the system check recovers). Alarm names start with the stack name, so
 * `npm run ops -- status` finds them by prefix.
 */
export class Alarms extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    const prefix = props.namePrefix ?? Stack.of(this).stackName;
    this.topic = props.topic ?? alarmTopic(this, 'Topic', props.alarmEmail);
    const notify = new actions.SnsAction(this.topic);
    const unlimited = props.cpuCredits === 'unlimited';

    if (isBurstable(props.instanceType)) {
      const threshold = creditBalanceLowThreshold(props.instanceType);
      const perHour = creditsPerHour(props.instanceType) ?? 12;
      // A new T3 starts at 0 credits (only T2 gets launch credits) and earns perHour an hour, so a
      // plain "balance < threshold" fired after every launch for threshold/perHour hours (2.4 h on
      // a t3.micro). The balance of a new, idle instance rises every 5 minutes; a drain that will
      // throttle (standard) or bill (unlimited) holds it flat at 0 or lowers it. So: breach only
      // while the balance is low AND not rising, for 15 minutes.
      const balance = instanceMetric(props.instanceId, 'CPUCreditBalance', 'Minimum');
      this.add(
        new cloudwatch.Alarm(this, 'CpuCreditBalanceLow', {
          alarmName: `${prefix}-cpu-credit-balance-low`,
          alarmDescription: unlimited
            ? `CPU credit balance below ${threshold} and falling (unlimited mode): the instance is running above its ` +
              'baseline and will spend surplus credits, billed at $0.05 per vCPU-hour, instead of slowing down. ' +
              'Find the load, or scale up if it is the new normal (npm run ops -- scale --to t3.small).'
            : `CPU credit balance below ${threshold} (10 % of what a ${props.instanceType} can bank) and falling: ` +
              'soon the broker is throttled to baseline. Find the load, or scale up (npm run ops -- scale --to t3.small).',
          metric: new cloudwatch.MathExpression({
            label: 'credit balance low and not rising',
            expression: `IF(balance < ${threshold} AND DIFF(balance) <= 0, 1, 0)`,
            usingMetrics: { balance },
            period: Duration.minutes(5),
          }),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          evaluationPeriods: 3,
          datapointsToAlarm: 3,
          // The first datapoint has no DIFF, and AND counts a missing value as 0 (false): not breaching.
          // No data at all (a stopped instance) is not an emergency either.
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
        notify,
        true,
      );
      if (unlimited) {
        this.add(
          new cloudwatch.Alarm(this, 'CpuSurplusCreditBalance', {
            alarmName: `${prefix}-cpu-surplus-credit-balance`,
            alarmDescription:
              `Unlimited mode has spent more than ${perHour} surplus CPU credits (one hour of what a ` +
              `${props.instanceType} earns) beyond its balance. They are paid back from later earnings if the load ` +
              'drops; what is left is billed at the end of 24 hours or when the instance stops. If this comes daily, ' +
              'a bigger type is cheaper (npm run ops -- scale --to t3.small).',
            metric: instanceMetric(props.instanceId, 'CPUSurplusCreditBalance', 'Maximum'),
            threshold: perHour,
            comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluationPeriods: 3,
            treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
          }),
          notify,
          true,
        );
        this.add(
          new cloudwatch.Alarm(this, 'CpuSurplusCreditsCharged', {
            alarmName: `${prefix}-cpu-surplus-credits-charged`,
            alarmDescription:
              'Unlimited mode billed surplus CPU credits: the load stayed above baseline longer than the earned ' +
              'credits could pay back. A bigger instance type may be cheaper.',
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

    this.addHostAlarms(props.instanceId, prefix, notify);

    const instanceCheck = new cloudwatch.Alarm(this, 'StatusCheckFailedInstance', {
      alarmName: `${prefix}-status-check-failed-instance`,
      alarmDescription:
        'The instance failed its own status check for 3 minutes (kernel, memory exhaustion, network ' +
        'configuration); EC2 reboots it, and the broker comes back with the boot. If it repeats, read ' +
        '`aws ec2 get-console-output` and the broker log group.',
      metric: instanceMetric(props.instanceId, 'StatusCheckFailed_Instance', 'Maximum', Duration.minutes(1)),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: cloudwatch.TreatMissingData.MISSING,
    });
    instanceCheck.addAlarmAction(new actions.Ec2Action(actions.Ec2InstanceAction.REBOOT));
    this.add(instanceCheck, notify, true);

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

    if (!props.topic) allowAlarmsToPublish(this.topic, this.alarms);
  }

  /** Memory, both disks and the broker's liveness, from the CloudWatch agent's metrics. */
  private addHostAlarms(instanceId: string, prefix: string, notify: actions.SnsAction): void {
    this.add(
      new cloudwatch.Alarm(this, 'MemoryUsedHigh', {
        alarmName: `${prefix}-memory-used-high`,
        alarmDescription:
          `Memory in use above ${MEMORY_USED_ALARM_PERCENT} % for 15 minutes; there is no swap, the OOM killer is ` +
          'next. Look at the broker log group and process_resident_memory_bytes, lower FETCH_MAX_BYTES or the ' +
          'connection limits, or move to a type with more memory (npm run ops -- scale --to t3.small).',
        metric: memUsedPercent(instanceId),
        threshold: MEMORY_USED_ALARM_PERCENT,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      notify,
      true,
    );
    for (const mountPath of MEASURED_PATHS) {
      const data = mountPath === '/data';
      this.add(
        new cloudwatch.Alarm(this, data ? 'DataDiskUsedHigh' : 'RootDiskUsedHigh', {
          alarmName: `${prefix}-${data ? 'data' : 'root'}-disk-used-high`,
          alarmDescription: data
            ? `The data volume (/data, minnow.db) is over ${DISK_USED_ALARM_PERCENT} % full. Grow it with ` +
              '`npx cdk deploy -c dataVolumeGiB=<bigger>` (in place, no downtime), or lower retention.ms of busy topics.'
            : `The root disk is over ${DISK_USED_ALARM_PERCENT} % full. Usual suspects: journald, ` +
              '/opt/minnow/releases, /var/log/minnow; `sudo du -xsh /var/log /opt /var/cache` in an SSM session.',
          metric: diskUsedPercent(instanceId, mountPath),
          threshold: DISK_USED_ALARM_PERCENT,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 2,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
        notify,
        true,
      );
    }
    // Every successful scrape of the broker's /metrics yields one minnow_database_bytes datapoint.
    // None for BROKER_SILENT_MINUTES: the broker is down, crash-looping or hung (or the agent is).
    this.add(
      new cloudwatch.Alarm(this, 'BrokerNotAnswering', {
        alarmName: `${prefix}-broker-not-answering`,
        alarmDescription:
          `The broker has not answered the CloudWatch agent's metrics scrape for ${BROKER_SILENT_MINUTES} minutes: ` +
          'minnow.service is stopped, crash-looping or hung, or the agent is not running. In an SSM session: ' +
          '`systemctl status minnow amazon-cloudwatch-agent`, `journalctl -u minnow -n 100`.',
        metric: brokerMetric(instanceId, BrokerMetric.DatabaseBytes, 'SampleCount', {}, Duration.minutes(1)),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: BROKER_SILENT_MINUTES,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      }),
      notify,
      true,
    );
  }

  private add(alarm: cloudwatch.Alarm, notify: actions.SnsAction, notifyOk: boolean): void {
    alarm.addAlarmAction(notify);
    if (notifyOk) alarm.addOkAction(notify);
    this.alarms.push(alarm);
  }
}

/**
 * The topic every alarm notifies. No SSE: alarm notifications carry no data, CloudWatch cannot
 * publish to a topic encrypted with the aws/sns key, and a customer-managed KMS key would cost $1/month.
 */
export function alarmTopic(scope: Construct, id: string, alarmEmail?: string): sns.Topic {
  const topic = new sns.Topic(scope, id, { displayName: 'minnow alarms', enforceSSL: true });
  if (alarmEmail) topic.addSubscription(new subscriptions.EmailSubscription(alarmEmail));
  return topic;
}

/**
 * enforceSSL replaces SNS's default topic policy with one Deny, which left nobody allowed to
 * publish: every notification failed (alarm history: "Failed to execute action"). CloudWatch
 * may publish for this stack's alarms only, in this account (confused-deputy guard).
 */
export function allowAlarmsToPublish(topic: sns.Topic, alarms: readonly cloudwatch.Alarm[]): void {
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowThisStacksAlarmsToPublish',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': Stack.of(topic).account },
        ArnLike: { 'aws:SourceArn': alarms.map((a) => a.alarmArn) },
      },
    }),
  );
}
