import { Stack, Tags, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IDependable } from 'constructs';
import { isBurstable } from '../burstable';
import type { CpuCreditMode } from '../config';
import { brokerUserData, installSettings, readInstaller } from '../user-data';
import type { BrokerSecurity } from './broker-security';
import { ebsKeyStatements } from './data-volume';
import type { Monitoring } from './monitoring';
import { ReleaseSignal } from './release-signal';
import { attachSsmAgentPolicy } from './ssm-agent-policy';

/** The plaintext Kafka port: loopback only with security, public with -c security=off. */
export const KAFKA_PORT = 9092;
/** The SASL_SSL port (Kafka's usual TLS port), the only one open with security. */
export const KAFKA_SASL_SSL_PORT = 9093;

export interface BrokerInstanceProps {
  readonly vpc: ec2.IVpc;
  /** The subnet (and so the AZ) of the instance; the data volume must be in the same AZ. */
  readonly subnet: ec2.ISubnet;
  /** The only source allowed to reach the public port (IPv4 or IPv6 CIDR). */
  readonly allowedCidr: string;
  /**
   * SASL_SSL on port 9093 (the only one open), plaintext on loopback only; the instance role may
   * read the admin secret and publish the CA. Without it: plaintext on 9092, no authentication.
   * @default - no security (unsafe: whoever reaches the port may do anything)
   */
  readonly security?: BrokerSecurity;
  /** The VPC's internet gateway attachment, which the Elastic IP must wait for. */
  readonly internetGatewayAttachment: IDependable;
  /** The volume mounted at /data; the instance attaches it itself at boot. */
  readonly dataVolume: ec2.IVolume;
  /**
   * The customer-managed key the data volume is encrypted with: the role may use it for EBS.
   * @default - none: the account's default EBS key, whose use the role is not granted
   */
  readonly dataVolumeKmsKeyArn?: string;
  /** The built broker, downloaded by the install script. */
  readonly brokerAsset: s3assets.Asset;
  /** @default 't3.micro' */
  readonly instanceType?: string;
  /**
   * CPU credit mode; applied only to burstable (T-family) types, the only ones that have credits.
   * @default 'standard'
   */
  readonly cpuCredits?: CpuCreditMode;
  /**
   * The Amazon Linux 2023 image, always pinned (lib/image-config.ts readImage): a new id REPLACES the
   * instance, so it changes only on purpose (docs/deploy.md, "Images and patching").
   */
  readonly amiId: string;
  /** @default 'info' */
  readonly logLevel?: string;
  /** The CloudWatch agent's log groups; the role may write to them and put metrics. @default - no agent */
  readonly monitoring?: Monitoring;
  /**
   * Several brokers (storage=postgres): the group they share, whose rules the stack sets (clients,
   * HTTPS, the database). @default - a group of its own admitting allowedCidr
   */
  readonly securityGroup?: ec2.SecurityGroup;
  /** The broker's NODE_ID (storage=postgres: 1..N). @default - the broker's own (stored in its database) */
  readonly nodeId?: number;
  /**
   * The RDS secret (username, password, host, port, dbname) the boot turns into STORAGE_ENGINE
   * (deploy/postgres.sh); the role may read it. @default - SQLite on the data volume
   */
  readonly databaseSecret?: secretsmanager.ISecret;
  /** The Name tag of the instance and its Elastic IP. @default 'minnow' */
  readonly nameTag?: string;
}

/**
 * The broker host: an Amazon Linux 2023 instance behind a security group that admits TCP 9092 from
 * one CIDR and nothing else (no SSH: Session Manager instead), IMDSv2 only, encrypted gp3 root,
 * plus an Elastic IP so the advertised address survives stop/start and instance-type changes.
 */
export class BrokerInstance extends Construct {
  readonly instance: ec2.Instance;
  readonly securityGroup: ec2.SecurityGroup;
  readonly role: iam.Role;
  readonly elasticIp: ec2.CfnEIP;
  readonly instanceType: string;
  /** The port the security group opens: 9093 (SASL_SSL) with security, 9092 without. */
  readonly publicPort: number;
  /** What the boot that installs this release reports to CloudFormation (release-signal.ts). */
  readonly releaseSignal: ReleaseSignal;

  constructor(scope: Construct, id: string, props: BrokerInstanceProps) {
    super(scope, id);
    this.instanceType = props.instanceType ?? 't3.micro';
    const instanceType = new ec2.InstanceType(this.instanceType);
    const { security } = props;
    this.publicPort = security ? KAFKA_SASL_SSL_PORT : KAFKA_PORT;

    this.securityGroup = props.securityGroup ?? this.ownSecurityGroup(props);

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description: security
        ? 'minnow broker instance: Session Manager, read the broker asset, attach its data volume, ' +
          'read the admin password, publish the CA certificate'
        : 'minnow broker instance: Session Manager, read the broker asset, attach its data volume',
    });
    // Not AmazonSSMManagedInstanceCore: it lets the instance read every SSM parameter (ssm-agent-policy.ts).
    attachSsmAgentPolicy(this, this.role);
    // The one release object, not the whole bootstrap bucket (Asset.grantRead): least privilege, and
    // no acknowledgement naming the default bootstrap qualifier, which failed synth for anyone with
    // their own (`cdk bootstrap --qualifier`).
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [props.brokerAsset.bucket.arnForObjects(props.brokerAsset.s3ObjectKey)],
      }),
    );
    security?.grantInstance(this.role);
    props.databaseSecret?.grantRead(this.role);
    // The instance attaches the data volume itself (see install.sh), so a replacement instance can
    // take it over once the old one is gone. Limited to this volume, and to instances tagged with it.
    const stack = Stack.of(this);
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['ec2:AttachVolume'],
        resources: [stack.formatArn({ service: 'ec2', resource: 'volume', resourceName: props.dataVolume.volumeId })],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['ec2:AttachVolume'],
        resources: [stack.formatArn({ service: 'ec2', resource: 'instance', resourceName: '*' })],
        conditions: { StringEquals: { 'aws:ResourceTag/minnow:data-volume': props.dataVolume.volumeId } },
      }),
    );
    // The attach loop reads the volume's state to tell a refused attach (back to `available`) from a
    // slow one. DescribeVolumes has no resource-level permissions.
    this.role.addToPolicy(new iam.PolicyStatement({ actions: ['ec2:DescribeVolumes'], resources: ['*'] }));
    // A volume encrypted with a customer-managed key attaches only if the role may use the key.
    if (props.dataVolumeKmsKeyArn !== undefined) {
      for (const statement of ebsKeyStatements(this, props.dataVolumeKmsKeyArn)) this.role.addToPolicy(statement);
    }

    this.allowVolumeTakeover(props.dataVolume.volumeId);
    const burstable = isBurstable(this.instanceType);
    if (burstable) this.allowCreditModeSwitch(props.dataVolume.volumeId);
    props.monitoring?.grantAgent(this.role);

    const name = props.nameTag ?? 'minnow';
    this.elasticIp = new ec2.CfnEIP(this, 'Eip', { domain: 'vpc', tags: [{ key: 'Name', value: name }] });
    // An EIP in a VPC of the same template needs the internet gateway attached first.
    this.elasticIp.node.addDependency(props.internetGatewayAttachment);

    // A literal id, no SSM image parameter: see readImage for why (replacement, and `cdk deploy` never
    // reporting "no changes" while an SSM-typed parameter is in the template).
    const machineImage = pinnedImage(props.amiId);

    const settings: Parameters<typeof installSettings>[0] = {
      assetUrl: props.brokerAsset.s3ObjectUrl,
      advertisedHost: this.elasticIp.attrPublicIp,
      dataVolumeId: props.dataVolume.volumeId,
      port: this.publicPort,
      ...(props.logLevel !== undefined && { logLevel: props.logLevel }),
      ...(props.monitoring && {
        monitoring: {
          brokerLogGroup: props.monitoring.brokerLogGroup.logGroupName,
          metricsLogGroup: props.monitoring.metricsLogGroup.logGroupName,
        },
      }),
      ...(burstable && { cpuCredits: props.cpuCredits ?? 'standard' }),
      ...(security && {
        security: {
          caParameterName: security.caParameter.parameterName,
          adminSecretArn: security.adminSecret.secretArn,
          ...(security.caSecret && { caSecretArn: security.caSecret.secretArn }),
        },
      }),
      ...(props.nodeId !== undefined && { nodeId: props.nodeId }),
      ...(props.databaseSecret && { databaseSecretArn: props.databaseSecret.secretArn }),
    };
    this.releaseSignal = new ReleaseSignal(this, 'Release', {
      boot: {
        releaseId: props.brokerAsset.assetHash,
        installSettings: installSettings(settings),
        installer: readInstaller(),
        imageId: machineImage.getImage(this).imageId,
        instanceType: this.instanceType,
      },
    });
    this.instance = new ec2.Instance(this, 'Instance', {
      vpc: props.vpc,
      vpcSubnets: { subnets: [props.subnet] },
      instanceType,
      machineImage,
      securityGroup: this.securityGroup,
      role: this.role,
      // Every boot input is in the release signal's ids, so every change of one waits for its boot.
      userData: brokerUserData({ ...settings, signalUrl: this.releaseSignal.url }),
      httpTokens: ec2.HttpTokens.REQUIRED,
      // Always launched unlimited: a new T3 has no launch credits, and a standard-mode first boot
      // (dnf, npm ci, the agent) would crawl at the 10 % baseline. install.sh switches to the
      // configured mode (MINNOW_CPU_CREDITS) once the broker answers; see allowCreditModeSwitch.
      ...(burstable && { creditSpecification: ec2.CpuCredits.UNLIMITED }),
      blockDevices: [
        {
          // AL2023's root device. 10 GiB root + 20 GiB data = the 30 GB of the EBS free tier.
          deviceName: '/dev/xvda',
          volume: ec2.BlockDeviceVolume.ebs(10, { volumeType: ec2.EbsDeviceVolumeType.GP3, encrypted: true }),
        },
      ],
    });
    // The first boot installs packages: start it only once the subnet's default route exists.
    this.instance.node.addDependency(props.subnet.internetConnectivityEstablished);
    Tags.of(this.instance).add('Name', name);
    Tags.of(this.instance).add('minnow:data-volume', props.dataVolume.volumeId);

    const association = new ec2.CfnEIPAssociation(this, 'EipAssociation', {
      allocationId: this.elasticIp.attrAllocationId,
      instanceId: this.instance.instanceId,
    });
    // The address moves once the new broker answers: on a replacement it stays on the old instance
    // (which serves until the new boot takes the data volume over from it) until the new boot
    // signalled SUCCESS, and a boot that fails never gets it. On a first deploy the association
    // follows the boot, so the boot must not wait for the address (it does not: it advertises the
    // allocated address, known before any association). No cycle: the condition depends on neither
    // the instance nor the association, and the user data names the EIP's PublicIp, not the association.
    association.node.addDependency(this.releaseSignal.condition);

    Validations.of(this.instance).acknowledge({
      id: 'CloudFormation-Validate::W9010',
      reason:
        'The AMI is pinned on purpose (cdk.context.json, `npm run ops -- image`) so that a new AL2023 release ' +
        'does not replace the instance.',
    });
    this.acknowledgeNagFindings();
  }

  /** One CIDR in on the public port, HTTPS out; nothing else (no SSH: Session Manager instead). */
  private ownSecurityGroup(props: BrokerInstanceProps): ec2.SecurityGroup {
    const { security } = props;
    const group = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: security
        ? `minnow broker: Kafka SASL_SSL ${KAFKA_SASL_SSL_PORT}/tcp from the allowed CIDR only; no SSH (use SSM)`
        : `minnow broker: Kafka ${KAFKA_PORT}/tcp from the allowed CIDR only; no SSH (use SSM)`,
      // Everything the host fetches (dnf repos, npm registry, S3, SSM) is HTTPS.
      allowAllOutbound: false,
    });
    const peer = ec2.Peer.ipv4(props.allowedCidr); // IPv4 only: config.ts refuses IPv6 blocks
    group.addIngressRule(peer, ec2.Port.tcp(this.publicPort), security ? 'Kafka clients (SASL_SSL)' : 'Kafka clients');
    group.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS: packages, broker asset, SSM');
    if (/\/0$/.test(props.allowedCidr)) {
      Validations.of(group).acknowledge({
        id: 'AwsSolutions-EC23',
        reason: `The deployer opened port ${this.publicPort} to everyone on purpose with -c allowPublic=true.`,
      });
    }
    return group;
  }

  /**
   * The instance sets its own credit mode after the first boot (broker/deploy/observe.sh), on
   * instances tagged with its data volume only, as for AttachVolume. CloudFormation never applies
   * CreditSpecification again unless the template's value changes, and the template always says
   * unlimited, so an update does not undo the switch; drift detection reports it (docs/deploy.md).
   * A policy of its own: minimizePolicies would merge it into the AttachVolume statement.
   */
  private allowCreditModeSwitch(dataVolumeId: string): void {
    const policy = new iam.Policy(this, 'CreditModePolicy', {
      statements: [
        new iam.PolicyStatement({
          actions: ['ec2:ModifyInstanceCreditSpecification'],
          resources: [Stack.of(this).formatArn({ service: 'ec2', resource: 'instance', resourceName: '*' })],
          conditions: { StringEquals: { 'aws:ResourceTag/minnow:data-volume': dataVolumeId } },
        }),
      ],
    });
    this.role.attachInlinePolicy(policy);
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:instance/*]',
      reason:
        "The instance's own ARN cannot appear in its role (a dependency cycle); the credit-mode switch is " +
        'limited by a condition to instances tagged minnow:data-volume=<this volume>.',
    });
  }

  /**
   * A replacement boot takes the data volume over from the instance it replaces, and gives it back if
   * it fails (broker/deploy/take-volume.sh): it stops and starts only instances tagged
   * minnow:data-volume=<this volume> (the previous instance of this broker, and itself), and detaches
   * this volume from them. DescribeInstances (the holder's state and tag) has no resource-level
   * permissions. A policy of its own, as for the credit mode: minimizePolicies would merge it.
   */
  private allowVolumeTakeover(dataVolumeId: string): void {
    const stack = Stack.of(this);
    const policy = new iam.Policy(this, 'VolumeTakeoverPolicy', {
      statements: [
        new iam.PolicyStatement({
          actions: ['ec2:StopInstances', 'ec2:StartInstances', 'ec2:DetachVolume'],
          resources: [stack.formatArn({ service: 'ec2', resource: 'instance', resourceName: '*' })],
          conditions: { StringEquals: { 'aws:ResourceTag/minnow:data-volume': dataVolumeId } },
        }),
        new iam.PolicyStatement({
          actions: ['ec2:DetachVolume'],
          resources: [stack.formatArn({ service: 'ec2', resource: 'volume', resourceName: dataVolumeId })],
        }),
        new iam.PolicyStatement({ actions: ['ec2:DescribeInstances'], resources: ['*'] }),
      ],
    });
    this.role.attachInlinePolicy(policy);
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:instance/*]',
      reason:
        "The previous instance's ARN is unknown to the template, and this instance's own would be a dependency " +
        'cycle; stop, start and detach are limited by a condition to instances tagged minnow:data-volume=<this volume>.',
    });
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ec2:DescribeInstances supports no resource-level permissions (Service Authorization Reference); the boot ' +
        'reads the state and tag of the instance that holds its data volume with it.',
    });
  }

  private acknowledgeNagFindings(): void {
    const policy = this.role.node.findChild('DefaultPolicy');
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:<AWS::AccountId>:instance/*]',
      reason:
        "The instance's own ARN cannot appear in its role (a dependency cycle); AttachVolume on instances is " +
        'limited by a condition to instances tagged minnow:data-volume=<this volume>.',
    });
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ec2:DescribeVolumes supports no resource-level permissions (Service Authorization Reference); the boot ' +
        "script reads its data volume's attachment state with it.",
    });
    Validations.of(this.instance).acknowledge({
      id: 'AwsSolutions-EC28',
      reason:
        'Detailed (1-minute) monitoring costs about $2/month, a fifth of a t3.micro. The alarms use 5-minute ' +
        'metrics, and the credit metrics are 5-minute anyway.',
    });
    Validations.of(this.instance).acknowledge({
      id: 'AwsSolutions-EC29',
      reason:
        'Termination protection would make `cdk destroy` and instance replacement fail. The state is on the ' +
        'separate data volume, which has a SNAPSHOT removal policy.',
    });
  }
}

/** A fixed AMI; an env-agnostic stack cannot use a per-region map, and a lookup would need credentials. */
function pinnedImage(amiId: string): ec2.IMachineImage {
  return {
    getImage: () => ({ imageId: amiId, osType: ec2.OperatingSystemType.LINUX, userData: ec2.UserData.forLinux() }),
  };
}
