import { Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

export interface BackupAlertsProps {
  /** The DLM policy (its ARN) whose move to state ERROR is reported. */
  readonly policyArn: string;
  /** The data volume: a snapshot of it that fails is reported (DLM's and `ops snapshot`'s). */
  readonly volumeId: string;
  /** The stack's alarm topic. Unencrypted (alarms.ts, alarmTopic): EventBridge needs no key grant. */
  readonly topic: sns.Topic;
}

/**
 * A failed backup reaches the alarm topic instead of waiting to be noticed. Two EventBridge rules
 * (EventBridge pricing: AWS service events on the default bus are free):
 * - DLM Policy State Change with state ERROR, for this stack's policy. DLM sends it when a policy
 *   cannot run, e.g. its role lacks a permission or the key is disabled (EventBridge events
 *   reference, "Amazon Data Lifecycle Manager events",
 *   https://docs.aws.amazon.com/eventbridge/latest/ref/events-ref-dlm.html; the EBS guide, "Monitor
 *   the lifecycle of snapshots and AMIs": detail { state, cause, policy_id }, resources [policy ARN]).
 * - EBS Snapshot Notification, event createSnapshot, result failed, of this volume (EBS guide,
 *   "Amazon EventBridge events for Amazon EBS", https://docs.aws.amazon.com/ebs/latest/userguide/ebs-cloud-watch-events.html:
 *   detail { event, result, cause, snapshot_id, source: "arn:aws:ec2::<region>:volume/vol-..." }).
 * Each sends one line of text, not the event's JSON, to what are e-mails for most users.
 */
export class BackupAlerts extends Construct {
  readonly rules: events.Rule[];

  constructor(scope: Construct, id: string, props: BackupAlertsProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    const toTopic = (input: events.RuleTargetInput): events.IRuleTarget => ({
      bind: () => ({ arn: props.topic.topicArn, input }),
    });
    const field = (path: string) => events.EventField.fromPath(path);

    const policyError = new events.Rule(this, 'DlmPolicyError', {
      description: `minnow ${stackName}: the data volume's snapshot policy (DLM) went to state ERROR`,
      eventPattern: {
        source: ['aws.dlm'],
        detailType: ['DLM Policy State Change'],
        resources: [props.policyArn],
        detail: { state: ['ERROR'] },
      },
    });
    policyError.addTarget(
      toTopic(
        events.RuleTargetInput.fromText(
          `minnow ${stackName}: the daily snapshot policy ${field('$.detail.policy_id')} is in state ERROR ` +
            `(${field('$.detail.cause')}): no new backups until it is fixed. ` +
            'aws dlm get-lifecycle-policy --policy-id policy-... gives the reason (docs/deploy.md, Backup).',
        ),
      ),
    );

    const snapshotFailed = new events.Rule(this, 'SnapshotFailed', {
      description: `minnow ${stackName}: a snapshot of the data volume failed`,
      eventPattern: {
        source: ['aws.ec2'],
        detailType: ['EBS Snapshot Notification'],
        detail: {
          event: ['createSnapshot'],
          result: ['failed'],
          source: events.Match.suffix(`:volume/${props.volumeId}`),
        },
      },
    });
    snapshotFailed.addTarget(
      toTopic(
        events.RuleTargetInput.fromText(
          `minnow ${stackName}: snapshot ${field('$.detail.snapshot_id')} of the data volume ` +
            `${props.volumeId} failed (${field('$.detail.cause')}). Take one by hand: npm run ops -- snapshot ` +
            '(docs/deploy.md, Backup).',
        ),
      ),
    );

    this.rules = [policyError, snapshotFailed];
    allowRulesToPublish(props.topic, this.rules);
  }
}

/**
 * The topic's policy (enforceSSL replaced SNS's default one) lets EventBridge publish for these
 * rules only, as allowAlarmsToPublish does for the alarms (confused-deputy guard). events.targets.SnsTopic
 * would grant events.amazonaws.com without a source condition, hence the hand-made toTopic target.
 */
function allowRulesToPublish(topic: sns.Topic, rules: readonly events.Rule[]): void {
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowThisStacksBackupRulesToPublish',
      principals: [new iam.ServicePrincipal('events.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': Stack.of(topic).account },
        ArnLike: { 'aws:SourceArn': rules.map((r) => r.ruleArn) },
      },
    }),
  );
}
