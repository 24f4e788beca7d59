import { RemovalPolicy, Size, Stack, Tags } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export interface DataVolumeProps {
  /** Must be the broker instance's AZ: EBS volumes attach only within their AZ. */
  readonly availabilityZone: string;
  /**
   * Size in GiB. With a snapshot it must be at least the snapshot's size; 'snapshot': the snapshot's.
   * @default 20
   */
  readonly sizeGiB?: number | 'snapshot';
  /**
   * Create the volume from this EBS snapshot (restore or move a database).
   * @default - a blank volume, formatted on first boot
   */
  readonly snapshotId?: string;
  /**
   * Encrypt with this customer-managed key (its ARN); the instance role must be granted its use.
   * @default - the account's default EBS encryption key
   */
  readonly kmsKeyArn?: string;
  /**
   * @default SNAPSHOT: a final snapshot when the stack is deleted or the volume replaced
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * What a principal needs to use a customer-managed key for EBS (attach a volume encrypted with it,
 * snapshot it): the actions the EBS guide lists under "Permissions for users", on that key only and
 * only through EC2 (kms:ViaService); grants only for AWS resources (kms:GrantIsForAWSResource).
 */
export function ebsKeyStatements(scope: Construct, keyArn: string): iam.PolicyStatement[] {
  const viaEc2 = { 'kms:ViaService': `ec2.${Stack.of(scope).region}.amazonaws.com` };
  return [
    new iam.PolicyStatement({
      actions: ['kms:CreateGrant'],
      resources: [keyArn],
      conditions: { Bool: { 'kms:GrantIsForAWSResource': 'true' }, StringEquals: viaEc2 },
    }),
    new iam.PolicyStatement({
      actions: [
        'kms:Decrypt',
        'kms:DescribeKey',
        'kms:GenerateDataKeyWithoutPlaintext',
        'kms:ReEncryptFrom',
        'kms:ReEncryptTo',
      ],
      resources: [keyArn],
      conditions: { StringEquals: viaEc2 },
    }),
  ];
}

/** The tag that names the stack a data volume belongs to; the DLM policy selects the volume by it. */
export const STACK_TAG = 'minnow:stack';

/**
 * The gp3 volume mounted at /data that holds minnow.db. It lives apart from the instance so the
 * instance can be resized, replaced or restored without touching the data. SNAPSHOT removal
 * policy: deleting the stack, or replacing the volume, leaves a final snapshot behind.
 * Nothing here depends on the instance type, so scaling up never touches the volume.
 */
export class DataVolume extends Construct {
  readonly volume: ec2.Volume;

  constructor(scope: Construct, id: string, props: DataVolumeProps) {
    super(scope, id);
    this.volume = new ec2.Volume(this, 'Volume', {
      availabilityZone: props.availabilityZone,
      ...(props.sizeGiB !== 'snapshot' && { size: Size.gibibytes(props.sizeGiB ?? 20) }),
      // Only set when given: an empty SnapshotId makes CloudFormation replace the volume on every update.
      ...(props.snapshotId !== undefined && { snapshotId: props.snapshotId }),
      volumeType: ec2.EbsDeviceVolumeType.GP3,
      encrypted: true,
      ...(props.kmsKeyArn !== undefined && { encryptionKey: kms.Key.fromKeyArn(this, 'Key', props.kmsKeyArn) }),
      removalPolicy: props.removalPolicy ?? RemovalPolicy.SNAPSHOT,
    });
    Tags.of(this.volume).add('Name', 'minnow-data');
    Tags.of(this.volume).add(STACK_TAG, Stack.of(this).stackName);
  }
}
