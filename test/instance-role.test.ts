import type { Template } from 'aws-cdk-lib/assertions';
import { SSM_AGENT_ACTIONS } from '../lib/constructs/ssm-agent-policy';
import { synthTemplate } from './helpers/synth';
import { synthClusterTemplate } from './helpers/synth-cluster';

// Least privilege for the SSM agent (issue 28, item 6): AmazonSSMManagedInstanceCore let any process
// on a broker read every SSM parameter of the account (ssm:GetParameter(s) on "*").

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

const actionsOf = (s: Statement): string[] => [s.Action].flat();

/** Every statement of every identity policy in the template (inline policies and the roles' own). */
function identityStatements(template: Template): Statement[] {
  const docs = [
    ...Object.values(template.findResources('AWS::IAM::Policy')).map((p) => p.Properties.PolicyDocument),
    ...Object.values(template.findResources('AWS::IAM::Role')).flatMap((r) =>
      ((r.Properties.Policies ?? []) as { PolicyDocument: unknown }[]).map((p) => p.PolicyDocument),
    ),
  ] as { Statement: Statement[] }[];
  return docs.flatMap((d) => d.Statement);
}

/** Does `action` (possibly a wildcard like ssm:Get*) cover ssm:GetParameter or ssm:GetParameters? */
function coversParameterRead(action: string): boolean {
  const pattern = new RegExp(`^${action.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i');
  return ['ssm:GetParameter', 'ssm:GetParameters', 'ssm:GetParametersByPath'].some((a) => pattern.test(a));
}

describe.each([
  ['single instance', () => synthTemplate()],
  ['cluster (storage=postgres)', () => synthClusterTemplate()],
])('instance roles of the %s stack', (_name, build) => {
  const template = build();

  test('no role attaches AmazonSSMManagedInstanceCore (or any AWS managed policy)', () => {
    const managed = Object.values(template.findResources('AWS::IAM::Role'))
      .filter((r) => JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('ec2.amazonaws.com'))
      .flatMap((r) => (r.Properties.ManagedPolicyArns ?? []) as unknown[]);
    expect(managed).toEqual([]);
    expect(JSON.stringify(template.toJSON())).not.toContain('AmazonSSMManagedInstanceCore');
  });

  test('no statement allows ssm:GetParameter* on "*"', () => {
    const wide = identityStatements(template).filter(
      (s) => s.Effect === 'Allow' && [s.Resource].flat().includes('*') && actionsOf(s).some(coversParameterRead),
    );
    expect(wide).toEqual([]);
  });

  test("each broker's role has the SSM agent's actions (Session Manager, Run Command for ops rollback)", () => {
    const roles = Object.entries(template.findResources('AWS::IAM::Role')).filter(([, r]) =>
      JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes('ec2.amazonaws.com'),
    );
    expect(roles.length).toBeGreaterThan(0);
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    for (const [roleId] of roles) {
      const granted = policies
        .filter((p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
        .flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
        .filter((s) => s.Effect === 'Allow' && [s.Resource].flat().includes('*'))
        .flatMap(actionsOf);
      expect(granted).toEqual(expect.arrayContaining([...SSM_AGENT_ACTIONS]));
      // What Run Command needs on the instance (ops rollback sends AWS-RunShellScript).
      expect(granted).toEqual(
        expect.arrayContaining(['ssm:UpdateInstanceInformation', 'ec2messages:GetMessages', 'ec2messages:SendReply']),
      );
    }
  });
});
