import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';

/**
 * What the SSM agent calls for Session Manager, Run Command (`ops rollback` sends AWS-RunShellScript)
 * and State Manager: AWS's AmazonSSMManagedInstanceCore (v2, 2019-05-23; AWS Managed Policy
 * Reference, https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AmazonSSMManagedInstanceCore.html)
 * without its ssm:GetParameter and ssm:GetParameters on "*". That policy has three statements, all on "*":
 *   1. ssm:DescribeAssociation, GetDeployablePatchSnapshotForInstance, GetDocument, DescribeDocument,
 *      GetManifest, GetParameter, GetParameters, ListAssociations, ListInstanceAssociations,
 *      PutInventory, PutComplianceItems, PutConfigurePackageResult, UpdateAssociationStatus,
 *      UpdateInstanceAssociationStatus, UpdateInstanceInformation;
 *   2. ssmmessages:CreateControlChannel, CreateDataChannel, OpenControlChannel, OpenDataChannel
 *      (Session Manager; Run Command too with agents 3.3+);
 *   3. ec2messages:AcknowledgeMessage, DeleteMessage, FailMessage, GetEndpoint, GetMessages, SendReply
 *      (Run Command: the agent fetches the command and returns its output).
 * The parameter reads let any process on the instance read every String/SecureString parameter of
 * the account (SecureString's default aws/ssm key decrypts for anyone with GetParameter). The agent
 * needs none for the kit's commands; the instance reads its one CA parameter through
 * BrokerSecurity.grantInstance. A document that resolves {{ssm:name}} on the instance would need its
 * own grant.
 *
 * Run Command as `ops rollback` uses it: the caller needs ssm:SendCommand and
 * ssm:GetCommandInvocation; the instance needs ec2messages:* (or ssmmessages:* on a newer agent)
 * and ssm:UpdateInstanceInformation (it must be Online), all kept here.
 */
export const SSM_AGENT_ACTIONS = [
  'ssm:DescribeAssociation',
  'ssm:GetDeployablePatchSnapshotForInstance',
  'ssm:GetDocument',
  'ssm:DescribeDocument',
  'ssm:GetManifest',
  'ssm:ListAssociations',
  'ssm:ListInstanceAssociations',
  'ssm:PutInventory',
  'ssm:PutComplianceItems',
  'ssm:PutConfigurePackageResult',
  'ssm:UpdateAssociationStatus',
  'ssm:UpdateInstanceAssociationStatus',
  'ssm:UpdateInstanceInformation',
  'ssmmessages:CreateControlChannel',
  'ssmmessages:CreateDataChannel',
  'ssmmessages:OpenControlChannel',
  'ssmmessages:OpenDataChannel',
  'ec2messages:AcknowledgeMessage',
  'ec2messages:DeleteMessage',
  'ec2messages:FailMessage',
  'ec2messages:GetEndpoint',
  'ec2messages:GetMessages',
  'ec2messages:SendReply',
] as const;

/** Attaches the SSM agent's policy to `role` as an inline policy of its own (see SSM_AGENT_ACTIONS). */
export function attachSsmAgentPolicy(scope: Construct, role: iam.Role): iam.Policy {
  const policy = new iam.Policy(scope, 'SsmAgentPolicy', {
    statements: [new iam.PolicyStatement({ actions: [...SSM_AGENT_ACTIONS], resources: ['*'] })],
  });
  role.attachInlinePolicy(policy);
  Validations.of(policy).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'ssmmessages: and ec2messages: actions have no resource types (Service Authorization Reference); the ssm: ' +
      'actions act on the managed instance itself, whose ARN its own role cannot name (a dependency cycle), or on ' +
      "documents and associations chosen by the caller. The list is AmazonSSMManagedInstanceCore's without " +
      'ssm:GetParameter(s), which would read every parameter of the account.',
  });
  return policy;
}
