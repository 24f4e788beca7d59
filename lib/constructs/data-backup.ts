import { Aws, Stack, Validations } from 'aws-cdk-lib';
import * as dlm from 'aws-cdk-lib/aws-dlm';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { BackupAlerts } from './backup-alerts';
import { STACK_TAG, ebsKeyStatements } from './data-volume';

export interface DataBackupProps {
  /** The volume to snapshot; it carries the tag minnow:stack=<stack name> the policy selects it by. */
  readonly volume: ec2.IVolume;
  /** Keep each daily snapshot this many days (at least 1). */
  readonly retentionDays: number;
  /**
   * When the daily snapshot starts, UTC hh:mm; DLM starts it within the hour after.
   * @default '03:00'
   */
  readonly startTimeUtc?: string;
  /**
   * The volume's customer-managed key: DLM's role must be able to use it (EBS guide, "Permissions
   * for encryption" under Data Lifecycle Manager).
   * @default - the account's default EBS key, nothing to grant for the AWS managed one
   */
  readonly kmsKeyArn?: string;
}

/**
 * Daily EBS snapshots of the data volume with Amazon Data Lifecycle Manager: one policy and one
 * role, no charge beyond the snapshots themselves. AWS Backup would add a vault, a plan and a
 * selection for the same EBS snapshots (its value, cross-account vaults and central reports, is
 * beyond one broker). SQLite in WAL mode makes a crash-consistent snapshot a valid database.
 */
export class DataBackup extends Construct {
  readonly policy: dlm.CfnLifecyclePolicy;
  readonly role: iam.Role;
  private readonly volumeId: string;

  constructor(scope: Construct, id: string, props: DataBackupProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const stackName = stack.stackName;
    this.volumeId = props.volume.volumeId;
    const snapshots = `arn:${Aws.PARTITION}:ec2:${Aws.REGION}::snapshot/*`;

    // What AWSDataLifecycleManagerServiceRole grants (AWS Managed Policy Reference) for what this
    // policy does, scoped to this volume and its snapshots: not the managed policy itself, whose
    // DeleteSnapshot, CopySnapshot and ModifySnapshotAttribute (share) reach every snapshot of the
    // account. The rest of it serves features this policy does not use; test/data-backup.test.ts
    // maps each of its actions to one or the other and fails if the policy starts using another
    // feature. A permission DLM turns out to need anyway puts the policy in state ERROR, which
    // BackupAlerts e-mails.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('dlm.amazonaws.com'),
      description: `minnow: Data Lifecycle Manager snapshots the data volume of ${stackName} daily`,
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['ec2:CreateSnapshot'],
        resources: [stack.formatArn({ service: 'ec2', resource: 'volume', resourceName: props.volume.volumeId })],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({ actions: ['ec2:CreateSnapshot', 'ec2:CreateTags'], resources: [snapshots] }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['ec2:DeleteSnapshot'],
        resources: [snapshots],
        conditions: { StringEquals: { [`aws:ResourceTag/${STACK_TAG}`]: stackName } },
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: [
          'ec2:DescribeInstances',
          'ec2:DescribeVolumes',
          'ec2:DescribeSnapshots',
          'ec2:DescribeAvailabilityZones',
        ],
        resources: ['*'],
      }),
    );
    if (props.kmsKeyArn !== undefined) {
      for (const statement of ebsKeyStatements(this, props.kmsKeyArn)) this.role.addToPolicy(statement);
    }

    this.policy = new dlm.CfnLifecyclePolicy(this, 'Policy', {
      // DLM allows only letters, digits, spaces, hyphens and underscores here.
      description: `minnow ${stackName} daily data volume snapshots kept ${props.retentionDays} days`.replace(
        /[^0-9A-Za-z _-]/g,
        '-',
      ),
      state: 'ENABLED',
      executionRoleArn: this.role.roleArn,
      policyDetails: {
        policyType: 'EBS_SNAPSHOT_MANAGEMENT',
        resourceTypes: ['VOLUME'],
        targetTags: [{ key: STACK_TAG, value: stackName }],
        schedules: [
          {
            name: 'daily',
            createRule: { interval: 24, intervalUnit: 'HOURS', times: [props.startTimeUtc ?? '03:00'] },
            retainRule: { interval: props.retentionDays, intervalUnit: 'DAYS' },
            // The same tags as `ops snapshot` gives its snapshots. Set here, not copied from the
            // volume (copyTags), so each key is given once; DeleteSnapshot above relies on minnow:stack.
            copyTags: false,
            tagsToAdd: [
              { key: 'Name', value: `${stackName}-data` },
              { key: STACK_TAG, value: stackName },
            ],
          },
        ],
      },
    });

    const policy = this.role.node.findChild('DefaultPolicy');
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ec2:DescribeInstances, DescribeVolumes, DescribeSnapshots and DescribeAvailabilityZones support no ' +
        'resource-level permissions (Service Authorization Reference); DLM lists the tagged volume and its ' +
        'snapshots with them.',
    });
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>::snapshot/*]',
      reason:
        "A new snapshot's id is unknown until DLM creates it; DeleteSnapshot is limited by a condition to " +
        'snapshots tagged minnow:stack=<this stack>.',
    });
  }

  /** The policy going to state ERROR, or a snapshot of the volume failing, is published to `topic`. */
  alertFailuresTo(topic: sns.Topic): BackupAlerts {
    return new BackupAlerts(this, 'Alerts', { policyArn: this.policy.attrArn, volumeId: this.volumeId, topic });
  }
}
