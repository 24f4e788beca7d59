// How CloudFormation updates a changed property: in place (no interruption), restart (some
// interruptions) or replacement. Replacement comes from the resource schemas' create-only
// properties (update-behaviour.json, extracted from cfn-lint: cfn-lint-schemas.ts); the schemas
// do not say which updates interrupt, so those few are listed here with the AWS page that says so.
import type { TypeUpdateBehaviour, UpdateBehaviourFile } from './cfn-lint-schemas';
import updateBehaviourFile from './update-behaviour.json';

export type UpdateBehaviour = 'no-op' | 'in place' | 'restart' | 'replacement';

const RANK: Record<UpdateBehaviour, number> = { 'no-op': 0, 'in place': 1, restart: 2, replacement: 3 };

export const worst = (behaviours: readonly UpdateBehaviour[]): UpdateBehaviour =>
  behaviours.reduce<UpdateBehaviour>((w, b) => (RANK[b] > RANK[w] ? b : w), 'no-op');

const EC2_INSTANCE_DOC =
  'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-ec2-instance.html';
const RDS_INSTANCE_DOC =
  'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-rds-dbinstance.html';

/**
 * "Update requires: Some interruptions": the instance stays (same id, volumes, Elastic IP) but is
 * stopped and started (EC2, EBS-backed) or rebooted (RDS). Keyed `Type.Property`.
 */
export const INTERRUPTING: Readonly<Record<string, string>> = {
  // Conditional create-only in the schema: replacement for instance-store instances, a stop and
  // start for EBS-backed ones (the kit's).
  'AWS::EC2::Instance.InstanceType': `${EC2_INSTANCE_DOC}#cfn-ec2-instance-instancetype`,
  'AWS::EC2::Instance.UserData': `${EC2_INSTANCE_DOC}#cfn-ec2-instance-userdata`,
  'AWS::EC2::Instance.EbsOptimized': `${EC2_INSTANCE_DOC}#cfn-ec2-instance-ebsoptimized`,
  // Not create-only, but the class change restarts the database (Multi-AZ: fails over first).
  'AWS::RDS::DBInstance.DBInstanceClass': `${RDS_INSTANCE_DOC}#cfn-rds-dbinstance-dbinstanceclass`,
};

export const UPDATE_BEHAVIOUR: UpdateBehaviourFile = updateBehaviourFile;

/** Whether update-behaviour.json knows the type (a new type in the kit needs a regenerated file). */
export const knowsType = (type: string): boolean => type in UPDATE_BEHAVIOUR.types;

export function propertyUpdate(type: string, property: string, file: UpdateBehaviourFile = UPDATE_BEHAVIOUR) {
  if (`${type}.${property}` in INTERRUPTING) return 'restart';
  const known: TypeUpdateBehaviour | null | undefined = file.types[type];
  if (!known) return 'in place';
  // A conditional create-only property not listed above is taken at its worst: replacement.
  if (known.createOnly.includes(property) || known.conditionalCreateOnly.includes(property)) return 'replacement';
  return 'in place';
}
