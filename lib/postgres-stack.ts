import { Aws, CfnOutput, Fn, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { Construct } from 'constructs';
import type { MinnowConfig } from './config';
import { Alarms, alarmTopic, allowAlarmsToPublish } from './constructs/alarms';
import { BrokerAsset, type BrokerAssetProps } from './constructs/broker-asset';
import { BrokerInstance, KAFKA_PORT, KAFKA_SASL_SSL_PORT } from './constructs/broker-instance';
import { BrokerSecurity } from './constructs/broker-security';
import { ClusterNetwork } from './constructs/cluster-network';
import { DataVolume } from './constructs/data-volume';
import { ClusterDashboard } from './constructs/cluster-dashboard';
import {
  DATABASE_CONNECTIONS_ALARM,
  DATABASE_CPU_ALARM_PERCENT,
  DATABASE_FREE_STORAGE_ALARM_BYTES,
  Database,
} from './constructs/database';
import { Monitoring } from './constructs/monitoring';
import { addRegionGuard } from './constructs/region-guard';
import { Outputs, securityOutputs } from './minnow-stack';

export interface MinnowPostgresStackProps extends StackProps {
  /** Validated context values with config.postgres set (readConfig with -c storage=postgres). */
  readonly config: MinnowConfig;
  /** @default - broker/ at the repository root */
  readonly brokerDir?: BrokerAssetProps['brokerDir'];
}

/** The outputs only the cluster has; the others keep their single-instance names (Outputs). */
export const ClusterOutputs = {
  DatabaseEndpoint: 'DatabaseEndpoint',
  DatabaseSecretArn: 'DatabaseSecretArn',
  InstanceIds: 'InstanceIds',
} as const;

/**
 * Each broker's /data: only its TLS material lives there now (the state is in the database), but a
 * volume keeps install.sh the single-instance one, byte for byte, and a replacement instance keeps
 * its certificate. gp3's minimum size.
 */
export const BROKER_VOLUME_GIB = 1;

// The database alarms' thresholds live beside the database (the cluster dashboard draws them too).
export {
  DATABASE_CONNECTIONS_ALARM,
  DATABASE_CPU_ALARM_PERCENT,
  DATABASE_FREE_STORAGE_ALARM_BYTES,
} from './constructs/database';

/**
 * Several minnow brokers on one RDS PostgreSQL (-c storage=postgres; docs/postgres.md). Every
 * broker is the single-instance BrokerInstance with its own Elastic IP, in zones round-robin; they
 * share a security group, the admin password, a CA, the log groups and the alarm topic. The
 * database sits in isolated subnets and admits the brokers' group only; its password never leaves
 * Secrets Manager except into each broker's root-only environment file at boot.
 */
export class MinnowPostgresStack extends Stack {
  readonly brokers: BrokerInstance[] = [];
  readonly database: Database;

  constructor(scope: Construct, id: string, props: MinnowPostgresStackProps) {
    super(scope, id, props);
    const { config } = props;
    const pg = config.postgres;
    if (!pg) throw new Error('MinnowPostgresStack needs config.postgres (-c storage=postgres)');

    addRegionGuard(this, {
      availabilityZone: pg.availabilityZones[0]!,
      amiId: config.amiId,
      stackName: this.stackName,
    });
    const network = new ClusterNetwork(this, 'Network', { availabilityZones: pg.availabilityZones });
    const asset = new BrokerAsset(
      this,
      'BrokerAsset',
      props.brokerDir !== undefined ? { brokerDir: props.brokerDir } : {},
    );
    const security = config.security === 'on' ? new BrokerSecurity(this, 'Security', { sharedCa: true }) : undefined;
    const publicPort = security ? KAFKA_SASL_SSL_PORT : KAFKA_PORT;
    const brokersGroup = new ec2.SecurityGroup(this, 'BrokersSecurityGroup', {
      vpc: network.vpc,
      description: `minnow brokers: Kafka ${publicPort}/tcp from the allowed CIDR only; no SSH (use SSM)`,
      allowAllOutbound: false,
    });
    brokersGroup.addIngressRule(ec2.Peer.ipv4(config.allowedCidr), ec2.Port.tcp(publicPort), 'Kafka clients');
    brokersGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS: packages, broker asset, SSM');
    if (/\/0$/.test(config.allowedCidr)) {
      Validations.of(brokersGroup).acknowledge({
        id: 'AwsSolutions-EC23',
        reason: `The deployer opened port ${publicPort} to everyone on purpose with -c allowPublic=true.`,
      });
    }

    this.database = new Database(this, 'Database', {
      vpc: network.vpc,
      brokersSecurityGroup: brokersGroup,
      instanceType: pg.dbInstanceType,
      multiAz: pg.multiAz,
      deletionProtection: pg.dbDeletionProtection,
      storageGiB: pg.dbStorageGiB,
      logRetentionDays: config.logRetentionDays,
    });
    const monitoring = new Monitoring(this, 'Monitoring', { retentionDays: config.logRetentionDays });
    const topic = alarmTopic(this, 'AlarmTopic', config.alarmEmail);
    const alarms: cloudwatch.Alarm[] = [];

    for (let nodeId = 1; nodeId <= pg.brokers; nodeId++) {
      const subnet = network.brokerSubnet(nodeId);
      // Moving up: broker 1's volume is a copy of the single instance's, for `minnow migrate`.
      const migration = nodeId === 1 ? pg.migrationSnapshotId : undefined;
      const volume = new DataVolume(this, `Broker${nodeId}Data`, {
        availabilityZone: subnet.availabilityZone,
        ...(migration !== undefined
          ? { snapshotId: migration, sizeGiB: 'snapshot' as const }
          : { sizeGiB: BROKER_VOLUME_GIB }),
        // Certificates only, reissued from the shared CA: nothing a final snapshot should keep.
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const broker = new BrokerInstance(this, `Broker${nodeId}`, {
        vpc: network.vpc,
        subnet,
        internetGatewayAttachment: network.internetGatewayAttachment,
        allowedCidr: config.allowedCidr,
        securityGroup: brokersGroup,
        dataVolume: volume.volume,
        brokerAsset: asset.asset,
        instanceType: config.instanceType,
        cpuCredits: config.cpuCredits,
        logLevel: config.logLevel,
        amiId: config.amiId,
        ...(security && { security }),
        monitoring,
        nodeId,
        databaseSecret: this.database.secret,
        nameTag: `minnow-${nodeId}`,
      });
      // The first boot starts the broker, which migrates the schema: the database must be up.
      broker.instance.node.addDependency(this.database.instance);
      const previous = this.brokers[this.brokers.length - 1];
      if (previous) {
        // One broker at a time: a change of the boot (a release, the type, the image, logLevel...)
        // reaches broker N only once broker N-1 has booted it and answered, so the others serve
        // meanwhile (a rolling update), and the first deploy starts broker 2 after broker 1 has
        // shared the CA. Each wait condition is created when its broker's turn comes, so its 60
        // minutes count from there, not from the deploy's start.
        broker.instance.node.addDependency(previous.instance, previous.releaseSignal.condition);
        broker.releaseSignal.condition.node.addDependency(previous.releaseSignal.condition);
      } else {
        // Broker 1's turn comes once the database exists (its boot cannot answer before): on a
        // first deploy its 60 minutes would otherwise race the RDS creation. On an update it holds
        // broker 1 back only while the database itself changes in the same deploy.
        broker.releaseSignal.condition.node.addDependency(this.database.instance);
      }
      // Why this rolls on an update: a change of the boot gives every broker's condition a new
      // logical id (release-signal.ts). A DependsOn orders updates as it orders creations ("Override
      // default parallelism when creating, updating, or deleting resources", DependsOn attribute:
      // https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-attribute-dependson.html),
      // so when it names a resource new in this update, CloudFormation first creates that resource,
      // and a wait condition's creation completes only once its signal came. Broker N's instance is
      // therefore stopped/started ("Updates with Some Interruption") or replaced ("Replacement":
      // created first, the old one deleted in the cleanup; "Understand update behaviors of stack
      // resources": https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-updating-stacks-update-behaviors.html)
      // only after broker N-1 answered, and a FAILURE or a timeout stops the update there and rolls back.
      this.brokers.push(broker);
      const brokerAlarms = new Alarms(this, `Broker${nodeId}Alarms`, {
        instanceId: broker.instance.instanceId,
        instanceType: config.instanceType,
        cpuCredits: config.cpuCredits,
        topic,
        namePrefix: `${this.stackName}-broker-${nodeId}`,
      });
      alarms.push(...brokerAlarms.alarms);
    }
    alarms.push(...this.databaseAlarms(topic));
    allowAlarmsToPublish(topic, alarms);
    const dashboard = new ClusterDashboard(this, 'Dashboard', {
      brokers: this.brokers.map((b, i) => ({ nodeId: i + 1, instanceId: b.instance.instanceId })),
      instanceType: config.instanceType,
      cpuCredits: config.cpuCredits,
      database: this.database.instance,
      databaseInstanceType: pg.dbInstanceType,
      databaseStorageGiB: pg.dbStorageGiB,
      alarms,
    });

    this.addOutputs(publicPort, security, monitoring, topic.topicArn);
    new CfnOutput(this, Outputs.DashboardName, { value: dashboard.dashboard.dashboardName });
  }

  private databaseAlarms(topic: Parameters<typeof allowAlarmsToPublish>[0]): cloudwatch.Alarm[] {
    const metrics = this.database.metrics();
    const notify = new actions.SnsAction(topic);
    const prefix = `${this.stackName}-database`;
    const alarms = [
      new cloudwatch.Alarm(this, 'DatabaseCpuHigh', {
        alarmName: `${prefix}-cpu-high`,
        alarmDescription:
          `The database's CPU above ${DATABASE_CPU_ALARM_PERCENT} % for 15 minutes: a burstable class spends its ` +
          'credits, then slows every broker. Look at Performance Insights or pg_stat_statements, or move to a ' +
          'bigger class (-c dbInstanceType=db.t4g.small: a few minutes of downtime, less with Multi-AZ).',
        metric: metrics.cpu,
        threshold: DATABASE_CPU_ALARM_PERCENT,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      new cloudwatch.Alarm(this, 'DatabaseFreeStorageLow', {
        alarmName: `${prefix}-free-storage-low`,
        alarmDescription:
          'The database has less than 2 GiB free: when it is full, every produce fails. Grow it ' +
          '(-c dbStorageGiB=<bigger>, in place) or lower retention.ms of busy topics.',
        metric: metrics.freeStorage,
        threshold: DATABASE_FREE_STORAGE_ALARM_BYTES,
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      new cloudwatch.Alarm(this, 'DatabaseConnectionsHigh', {
        alarmName: `${prefix}-connections-high`,
        alarmDescription:
          `More than ${DATABASE_CONNECTIONS_ALARM} connections to the database for 15 minutes; the brokers hold ` +
          'at most 10 each. A leak or a foreign client: SELECT usename, client_addr, count(*) FROM pg_stat_activity ' +
          'GROUP BY 1, 2.',
        metric: metrics.connections,
        threshold: DATABASE_CONNECTIONS_ALARM,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    ];
    for (const alarm of alarms) {
      alarm.addAlarmAction(notify);
      alarm.addOkAction(notify);
    }
    return alarms;
  }

  private addOutputs(
    publicPort: number,
    security: BrokerSecurity | undefined,
    monitoring: Monitoring,
    topicArn: string,
  ): void {
    new CfnOutput(this, Outputs.BootstrapServers, {
      value: Fn.join(
        ',',
        this.brokers.map((b) => Fn.join('', [b.elasticIp.attrPublicIp, `:${publicPort}`])),
      ),
      description: security
        ? 'Kafka bootstrap servers, SASL_SSL: every broker (Elastic IPs); any one of them is enough to start'
        : 'Kafka bootstrap servers, PLAINTEXT without authentication (security=off): every broker',
    });
    if (security) securityOutputs(this, security, 'SSM parameter with the CA certificate of every broker');
    new CfnOutput(this, ClusterOutputs.DatabaseEndpoint, {
      value: Fn.join('', [
        this.database.instance.dbInstanceEndpointAddress,
        ':',
        this.database.instance.dbInstanceEndpointPort,
      ]),
      description: 'The RDS PostgreSQL endpoint (isolated subnets: reachable from the brokers only)',
    });
    new CfnOutput(this, ClusterOutputs.DatabaseSecretArn, {
      value: this.database.secret.secretArn,
      description: 'Secret with the database user, password, host and port (read by each broker at boot)',
    });
    new CfnOutput(this, ClusterOutputs.InstanceIds, {
      value: Fn.join(
        ',',
        this.brokers.map((b) => b.instance.instanceId),
      ),
      description: `The brokers' instances, node ids 1..${this.brokers.length} in this order`,
    });
    new CfnOutput(this, Outputs.SsmSessionCommand, {
      value: Fn.join('', ['aws ssm start-session --region ', Aws.REGION, ' --target <one of InstanceIds>']),
      description: 'A shell on a broker without SSH (needs the Session Manager plugin)',
    });
    new CfnOutput(this, Outputs.AlarmTopicArn, { value: topicArn });
    new CfnOutput(this, Outputs.BrokerLogGroup, {
      value: monitoring.brokerLogGroup.logGroupName,
      description: "Every broker's journal, one stream per instance: aws logs tail <name> --follow",
    });
  }
}
