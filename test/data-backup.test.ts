import { Match } from 'aws-cdk-lib/assertions';
import { only, synthTemplate } from './helpers/synth';

// Issue 28, item 7: backups fail loudly (EventBridge to the alarm topic), and DLM's role is shown to
// cover what AWS's managed service role policy grants for what this policy does.

const template = synthTemplate();
const [volumeId] = only(template, 'AWS::EC2::Volume');
const [policyId, policy] = only(template, 'AWS::DLM::LifecyclePolicy');
const [topicId] = only(template, 'AWS::SNS::Topic');
const rules = template.findResources('AWS::Events::Rule');

type Target = { Arn: unknown; InputTransformer: { InputPathsMap: Record<string, string>; InputTemplate: unknown } };
type Rule = { Properties: { EventPattern: Record<string, unknown>; Targets: Target[] } };
/** The text EventBridge sends, tokens and all, as one string. */
const messageOf = (rule: Rule): string => JSON.stringify(rule.Properties.Targets[0]?.InputTransformer.InputTemplate);
function ruleWith(detailType: string): [string, Rule] {
  const found = Object.entries(rules).filter(([, r]) =>
    JSON.stringify(r.Properties.EventPattern['detail-type']).includes(detailType),
  );
  expect(found).toHaveLength(1);
  return found[0] as [string, Rule];
}

describe('backup failures reach the alarm topic', () => {
  test("DLM Policy State Change to ERROR, for this stack's policy only", () => {
    const [, rule] = ruleWith('DLM Policy State Change');
    expect(rule.Properties.EventPattern).toEqual({
      source: ['aws.dlm'],
      'detail-type': ['DLM Policy State Change'],
      resources: [{ 'Fn::GetAtt': [policyId, 'Arn'] }],
      detail: { state: ['ERROR'] },
    });
    expect(rule.Properties.Targets).toEqual([expect.objectContaining({ Arn: { Ref: topicId } })]);
    expect(messageOf(rule)).toContain(
      'the daily snapshot policy <detail-policy_id> is in state ERROR (<detail-cause>)',
    );
  });

  test('a failed createSnapshot of this volume (DLM or ops snapshot)', () => {
    const [, rule] = ruleWith('EBS Snapshot Notification');
    expect(rule.Properties.EventPattern).toEqual({
      source: ['aws.ec2'],
      'detail-type': ['EBS Snapshot Notification'],
      detail: {
        event: ['createSnapshot'],
        result: ['failed'],
        source: [{ suffix: { 'Fn::Join': ['', [':volume/', { Ref: volumeId }]] } }],
      },
    });
    expect(rule.Properties.Targets).toEqual([expect.objectContaining({ Arn: { Ref: topicId } })]);
    expect(messageOf(rule)).toContain('snapshot <detail-snapshot_id> of the data volume ');
    expect(messageOf(rule)).toContain(' failed (<detail-cause>)');
  });

  test('the message is text naming the cause, with no <placeholder> EventBridge would take for a variable', () => {
    for (const rule of Object.values(rules) as Rule[]) {
      const paths = rule.Properties.Targets[0]?.InputTransformer.InputPathsMap ?? {};
      const placeholders = [...messageOf(rule).matchAll(/<([^<>]*)>/g)].map((m) => m[1]);
      expect(placeholders.length).toBeGreaterThan(0);
      for (const name of placeholders) expect(Object.keys(paths)).toContain(name);
    }
  });

  test('the topic lets EventBridge publish for these two rules only, in this account', () => {
    const statements = Object.values(template.findResources('AWS::SNS::TopicPolicy')).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as Record<string, unknown>[],
    );
    const events = statements.filter((s) => JSON.stringify(s.Principal).includes('events.amazonaws.com'));
    expect(events).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sns:Publish',
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: { 'aws:SourceArn': Object.keys(rules).map((id) => ({ 'Fn::GetAtt': [id, 'Arn'] })) },
        },
      }),
    ]);
  });

  test('no scheduled snapshots, no rules', () => {
    synthTemplate({ snapshotRetentionDays: '0' }).resourceCountIs('AWS::Events::Rule', 0);
  });
});

/**
 * AWSDataLifecycleManagerServiceRole's actions (AWS Managed Policy Reference, v8 of 2024-12-16:
 * statement 1 on "*", CreateTags on snapshots, the events: actions on DLM's own
 * AwsDataLifecycleRule.managed-cwe.* rules), each with what in a lifecycle policy needs it.
 * 'granted': this stack's role has it, scoped where EC2 allows.
 */
const MANAGED_POLICY_ACTIONS: Record<string, 'granted' | string> = {
  'ec2:CreateSnapshot': 'granted',
  'ec2:DeleteSnapshot': 'granted',
  'ec2:DescribeInstances': 'granted',
  'ec2:DescribeVolumes': 'granted',
  'ec2:DescribeSnapshots': 'granted',
  'ec2:DescribeAvailabilityZones': 'granted',
  'ec2:CreateTags': 'granted',
  'ec2:CreateSnapshots': 'ResourceTypes INSTANCE (multi-volume snapshots)',
  'ec2:EnableFastSnapshotRestores': 'FastRestoreRule',
  'ec2:DescribeFastSnapshotRestores': 'FastRestoreRule',
  'ec2:DisableFastSnapshotRestores': 'FastRestoreRule',
  'ec2:CopySnapshot': 'CrossRegionCopyRules, or an EVENT_BASED_POLICY (cross-account copy)',
  'ec2:ModifySnapshotAttribute': 'ShareRules',
  'ec2:DescribeSnapshotAttribute': 'ShareRules',
  'ec2:DescribeSnapshotTierStatus': 'ArchiveRule',
  'ec2:ModifySnapshotTier': 'ArchiveRule',
  'events:PutRule': 'EVENT_BASED_POLICY',
  'events:DeleteRule': 'EVENT_BASED_POLICY',
  'events:DescribeRule': 'EVENT_BASED_POLICY',
  'events:EnableRule': 'EVENT_BASED_POLICY',
  'events:DisableRule': 'EVENT_BASED_POLICY',
  'events:ListTargetsByRule': 'EVENT_BASED_POLICY',
  'events:PutTargets': 'EVENT_BASED_POLICY',
  'events:RemoveTargets': 'EVENT_BASED_POLICY',
};

describe("DLM's role against AWSDataLifecycleManagerServiceRole", () => {
  const granted = Object.entries(template.findResources('AWS::IAM::Policy'))
    .filter(([id]) => id.startsWith('BackupRole'))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
    .flatMap((s) => [s.Action].flat());

  test("has every action of the managed policy that this policy's features use", () => {
    const needed = Object.keys(MANAGED_POLICY_ACTIONS).filter((a) => MANAGED_POLICY_ACTIONS[a] === 'granted');
    expect(granted).toEqual(expect.arrayContaining(needed));
    expect(new Set(granted)).toEqual(new Set(needed)); // and nothing beyond it
  });

  test('uses none of the features the other actions serve (add their actions if it ever does)', () => {
    const details = policy.Properties.PolicyDetails as Record<string, unknown>;
    expect(details.PolicyType).toBe('EBS_SNAPSHOT_MANAGEMENT');
    expect(details.ResourceTypes).toEqual(['VOLUME']);
    expect(details.EventSource).toBeUndefined();
    for (const schedule of details.Schedules as Record<string, unknown>[]) {
      expect(Object.keys(schedule).sort()).toEqual(['CopyTags', 'CreateRule', 'Name', 'RetainRule', 'TagsToAdd']);
    }
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: { Statement: [Match.objectLike({ Principal: { Service: 'dlm.amazonaws.com' } })] },
      ManagedPolicyArns: Match.absent(),
    });
  });
});
