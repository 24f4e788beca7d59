import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** The database PostgreSQL major version: 16 (RDS picks the newest minor and upgrades minors itself). */
export const POSTGRES_VERSION = rds.PostgresEngineVersion.VER_16;
export const DATABASE_PORT = 5432;
export const DATABASE_NAME = 'minnow';
export const DATABASE_USER = 'minnow';

/** Free storage below this (bytes) for 15 minutes: a tenth of the default 20 GiB. */
export const DATABASE_FREE_STORAGE_ALARM_BYTES = 2 * 1024 ** 3;
/** Storage autoscaling may grow the database up to this many times its allocated size. */
export const DATABASE_MAX_STORAGE_FACTOR = 4;
/** RDS's largest gp3 volume for PostgreSQL, GiB. */
const RDS_MAX_STORAGE_GIB = 65536;
/** Average CPU above this (%) for 15 minutes; a db.t4g.micro is burstable like the brokers. */
export const DATABASE_CPU_ALARM_PERCENT = 80;
/**
 * Connections above this for 15 minutes. Each broker's pool holds up to 10 (docs/postgres.md); a
 * db.t4g.micro allows about 80 (max_connections follows the memory), so more than 60 means a leak
 * or a foreign client long before new connections are refused.
 */
export const DATABASE_CONNECTIONS_ALARM = 60;

export interface DatabaseProps {
  readonly vpc: ec2.IVpc;
  /** The brokers' security group: the only source admitted on 5432. */
  readonly brokersSecurityGroup: ec2.SecurityGroup;
  /** e.g. db.t4g.micro */
  readonly instanceType: string;
  readonly multiAz: boolean;
  readonly deletionProtection: boolean;
  readonly storageGiB: number;
  /** Days the exported PostgreSQL log keeps its events (the stack's logRetentionDays). */
  readonly logRetentionDays: number;
  /**
   * Storage autoscaling's ceiling: RDS grows the volume when free space stays under 10 % (RDS User
   * Guide, "Managing capacity automatically with Amazon RDS storage autoscaling").
   * @default DATABASE_MAX_STORAGE_FACTOR times storageGiB, at most 65536
   */
  readonly maxStorageGiB?: number;
}

/**
 * The brokers' shared state: RDS PostgreSQL in the isolated subnets (no route to the internet, no
 * NAT gateway), encrypted gp3, 7 days of automated backups, TLS required (rds.force_ssl), the
 * password generated into Secrets Manager, reachable on 5432 from the brokers' group only.
 */
export class Database extends Construct {
  readonly instance: rds.DatabaseInstance;
  readonly secret: secretsmanager.ISecret;
  readonly securityGroup: ec2.SecurityGroup;
  readonly instanceType: string;

  constructor(scope: Construct, id: string, props: DatabaseProps) {
    super(scope, id);
    this.instanceType = props.instanceType;
    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: `minnow database: PostgreSQL ${DATABASE_PORT}/tcp from the brokers security group only`,
      allowAllOutbound: false,
    });
    this.securityGroup.addIngressRule(props.brokersSecurityGroup, ec2.Port.tcp(DATABASE_PORT), 'minnow brokers');
    props.brokersSecurityGroup.addEgressRule(this.securityGroup, ec2.Port.tcp(DATABASE_PORT), 'the database');

    const engine = rds.DatabaseInstanceEngine.postgres({ version: POSTGRES_VERSION });
    const parameterGroup = new rds.ParameterGroup(this, 'Parameters', {
      engine,
      description: 'minnow: TLS only (the brokers connect with sslmode=verify-full)',
      // The default since PostgreSQL 15 on RDS, pinned so a parameter group change cannot undo it.
      parameters: { 'rds.force_ssl': '1' },
    });
    this.instance = new rds.DatabaseInstance(this, 'Instance', {
      engine,
      instanceType: new ec2.InstanceType(props.instanceType.replace(/^db\./, '')),
      vpc: props.vpc,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      securityGroups: [this.securityGroup],
      port: DATABASE_PORT,
      databaseName: DATABASE_NAME,
      credentials: rds.Credentials.fromGeneratedSecret(DATABASE_USER),
      parameterGroup,
      storageType: rds.StorageType.GP3,
      allocatedStorage: props.storageGiB,
      storageEncrypted: true,
      multiAz: props.multiAz,
      backupRetention: Duration.days(7),
      deletionProtection: props.deletionProtection,
      // A final snapshot when the stack is deleted (once deletion protection is off).
      removalPolicy: RemovalPolicy.SNAPSHOT,
      publiclyAccessible: false,
      autoMinorVersionUpgrade: true,
      copyTagsToSnapshot: true,
      caCertificate: rds.CaCertificate.RDS_CA_RSA2048_G1,
      cloudwatchLogsExports: ['postgresql'],
      // RDS creates /aws/rds/instance/<id>/postgresql itself, with no retention (kept forever, billed
      // per GB-month). No CloudFormation property sets it: CDK's LogRetention custom resource does
      // (one small Lambda, run on deploys only).
      cloudwatchLogsRetention: props.logRetentionDays as logs.RetentionDays, // validated in readConfig
      maxAllocatedStorage:
        props.maxStorageGiB ?? Math.min(props.storageGiB * DATABASE_MAX_STORAGE_FACTOR, RDS_MAX_STORAGE_GIB),
    });
    if (!this.instance.secret) throw new Error('the database has no generated secret');
    this.secret = this.instance.secret;
    this.acknowledgeNagFindings(props);
  }

  /** CPU, free storage and connections, for the stack's alarm topic. */
  metrics(): { cpu: cloudwatch.IMetric; freeStorage: cloudwatch.IMetric; connections: cloudwatch.IMetric } {
    const period = Duration.minutes(5);
    return {
      cpu: this.instance.metricCPUUtilization({ period, statistic: 'Average' }),
      freeStorage: this.instance.metricFreeStorageSpace({ period, statistic: 'Minimum' }),
      connections: this.instance.metricDatabaseConnections({ period, statistic: 'Maximum' }),
    };
  }

  private acknowledgeNagFindings(props: DatabaseProps): void {
    if (!props.multiAz) {
      Validations.of(this.instance).acknowledge({
        id: 'AwsSolutions-RDS3',
        reason:
          'Multi-AZ doubles the instance cost; it is one flag away (-c multiAz=true, docs/cluster.md). ' +
          'Without it a zone outage stops the cluster until RDS restores the instance; backups cover 7 days.',
      });
    }
    if (!props.deletionProtection) {
      Validations.of(this.instance).acknowledge({
        id: 'AwsSolutions-RDS10',
        reason: 'The deployer turned deletion protection off on purpose (-c dbDeletionProtection=false) to delete it.',
      });
    }
    Validations.of(this.instance.node.findChild('Secret')).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Each broker reads the password once, at boot, into its environment: a rotation would lock the running ' +
        'brokers out until they reboot, and the rotation Lambda would need a Secrets Manager VPC endpoint in the ' +
        'isolated subnets (about $7/month per zone). Rotate by hand: docs/postgres.md, "The kit".',
    });
    // The singleton CDK adds to the stack for cloudwatchLogsRetention (aws-logs LogRetention).
    const logRetention = Stack.of(this)
      .node.children.filter((c) => c.node.id.startsWith('LogRetention'))
      .map((c) => c.node.tryFindChild('ServiceRole'))
      .find((r): r is iam.Role => r instanceof iam.Role);
    if (logRetention) {
      Validations.of(logRetention).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "CDK's LogRetention function (it sets the retention of the RDS log group, which RDS creates itself) writes " +
          'its own log with the AWS-maintained basic execution policy; it runs on deploys only.',
      });
      Validations.of(logRetention.node.findChild('DefaultPolicy')).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          "CDK's LogRetention grants logs:PutRetentionPolicy and DeleteRetentionPolicy on * (one function serves " +
          "every log group of the stack); here it only sets the retention of the database's postgresql log group.",
      });
    }
    Validations.of(this.instance).acknowledge({
      id: 'AwsSolutions-RDS11',
      reason:
        "A non-default port hides nothing: the database has no public address and admits only the brokers' " +
        'security group on 5432.',
    });
  }
}
