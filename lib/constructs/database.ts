import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
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
    Validations.of(this.instance).acknowledge({
      id: 'AwsSolutions-RDS11',
      reason:
        "A non-default port hides nothing: the database has no public address and admits only the brokers' " +
        'security group on 5432.',
    });
  }
}
