import { Aws, CfnOutput, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { MinnowConfig } from './config';
import { Alarms } from './constructs/alarms';
import { BrokerAsset, type BrokerAssetProps } from './constructs/broker-asset';
import { BrokerInstance } from './constructs/broker-instance';
import { ADMIN_USER, BrokerSecurity } from './constructs/broker-security';
import { BrokerDashboard } from './constructs/dashboard';
import { DataBackup } from './constructs/data-backup';
import { DataVolume } from './constructs/data-volume';
import { Monitoring } from './constructs/monitoring';
import { Network } from './constructs/network';
import { addRegionGuard } from './constructs/region-guard';

export interface MinnowStackProps extends StackProps {
  /** Validated context values (see readConfig). */
  readonly config: MinnowConfig;
  /** @default - broker/ at the repository root */
  readonly brokerDir?: BrokerAssetProps['brokerDir'];
}

/** Output names; bin/ops.ts reads them from the deployed stack. */
export const Outputs = {
  BootstrapServers: 'BootstrapServers',
  InstanceId: 'InstanceId',
  DataVolumeId: 'DataVolumeId',
  SsmSessionCommand: 'SsmSessionCommand',
  AlarmTopicArn: 'AlarmTopicArn',
  DashboardName: 'DashboardName',
  /** The broker's log (its journal, shipped by the CloudWatch agent). */
  BrokerLogGroup: 'BrokerLogGroup',
  /** With security: the SSM parameter holding the CA certificate (npm run ops -- ca). */
  CaCertificateParameter: 'CaCertificateParameter',
  /** With security: the secret holding the admin password (npm run ops -- password). */
  AdminSecretArn: 'AdminSecretArn',
  /** How to connect: security protocol, mechanism, user, and the ops commands for CA and password. */
  ConnectWith: 'ConnectWith',
} as const;

/**
 * minnow on one EC2 instance. Env-agnostic (no account/region, no lookups) so `cdk synth` works
 * offline; the construct ids below are frozen: renaming one replaces the resource it names.
 */
export class MinnowStack extends Stack {
  constructor(scope: Construct, id: string, props: MinnowStackProps) {
    super(scope, id, props);
    const { config } = props;

    addRegionGuard(this, { availabilityZone: config.availabilityZone, amiId: config.amiId, stackName: this.stackName });
    // One zone for subnet, instance and volume, chosen once (config.availabilityZone).
    const network = new Network(this, 'Network', { availabilityZone: config.availabilityZone });
    const data = new DataVolume(this, 'Data', {
      availabilityZone: config.availabilityZone,
      sizeGiB: config.dataVolumeGiB,
      ...(config.dataSnapshotId !== undefined && { snapshotId: config.dataSnapshotId }),
      ...(config.dataVolumeKmsKeyArn !== undefined && { kmsKeyArn: config.dataVolumeKmsKeyArn }),
    });
    const backup =
      config.snapshotRetentionDays > 0
        ? new DataBackup(this, 'Backup', {
            volume: data.volume,
            retentionDays: config.snapshotRetentionDays,
            ...(config.dataVolumeKmsKeyArn !== undefined && { kmsKeyArn: config.dataVolumeKmsKeyArn }),
          })
        : undefined;
    const asset = new BrokerAsset(
      this,
      'BrokerAsset',
      props.brokerDir !== undefined ? { brokerDir: props.brokerDir } : {},
    );
    // -c security=off: the old plaintext stack, no authentication (unsafe; see docs/connect-aws.md).
    const security = config.security === 'on' ? new BrokerSecurity(this, 'Security') : undefined;
    const monitoring = new Monitoring(this, 'Monitoring', { retentionDays: config.logRetentionDays });
    const broker = new BrokerInstance(this, 'Broker', {
      vpc: network.vpc,
      subnet: network.subnet,
      internetGatewayAttachment: network.internetGatewayAttachment,
      allowedCidr: config.allowedCidr,
      dataVolume: data.volume,
      ...(config.dataVolumeKmsKeyArn !== undefined && { dataVolumeKmsKeyArn: config.dataVolumeKmsKeyArn }),
      brokerAsset: asset.asset,
      instanceType: config.instanceType,
      cpuCredits: config.cpuCredits,
      logLevel: config.logLevel,
      amiId: config.amiId,
      ...(security && { security }),
      monitoring,
    });
    const instanceId = broker.instance.instanceId;
    const alarms = new Alarms(this, 'Alarms', {
      instanceId,
      instanceType: config.instanceType,
      cpuCredits: config.cpuCredits,
      ...(config.alarmEmail !== undefined && { alarmEmail: config.alarmEmail }),
    });
    backup?.alertFailuresTo(alarms.topic);
    const dashboard = new BrokerDashboard(this, 'Dashboard', {
      instanceId,
      instanceType: config.instanceType,
      dataVolumeId: data.volume.volumeId,
      cpuCredits: config.cpuCredits,
      alarms: alarms.alarms,
      metricsLogGroupName: monitoring.metricsLogGroup.logGroupName,
      dataVolumeGiB: config.dataVolumeGiB,
    });

    new CfnOutput(this, Outputs.BootstrapServers, {
      value: Fn.join('', [broker.elasticIp.attrPublicIp, `:${broker.publicPort}`]),
      description: security
        ? 'Kafka bootstrap servers, SASL_SSL (the Elastic IP, which survives stop/start and resizing)'
        : 'Kafka bootstrap servers, PLAINTEXT without authentication (security=off; the Elastic IP)',
    });
    if (security) securityOutputs(this, security, 'SSM parameter with the CA certificate clients trust');
    new CfnOutput(this, Outputs.InstanceId, { value: instanceId });
    new CfnOutput(this, Outputs.DataVolumeId, {
      value: data.volume.volumeId,
      description: 'The EBS volume mounted at /data that holds minnow.db',
    });
    new CfnOutput(this, Outputs.SsmSessionCommand, {
      value: Fn.join('', ['aws ssm start-session --target ', instanceId, ' --region ', Aws.REGION]),
      description: 'A shell on the instance without SSH (needs the Session Manager plugin)',
    });
    new CfnOutput(this, Outputs.AlarmTopicArn, { value: alarms.topic.topicArn });
    new CfnOutput(this, Outputs.DashboardName, { value: dashboard.dashboard.dashboardName });
    new CfnOutput(this, Outputs.BrokerLogGroup, {
      value: monitoring.brokerLogGroup.logGroupName,
      description: "The broker's journal, shipped by the CloudWatch agent: aws logs tail <name> --follow",
    });
  }
}

/** The outputs a client needs for SASL_SSL: where the CA and the admin password are, and the settings. */
export function securityOutputs(stack: Stack, security: BrokerSecurity, caWhat: string): void {
  new CfnOutput(stack, Outputs.CaCertificateParameter, {
    value: security.caParameter.parameterName,
    description: `${caWhat}: npm run ops -- ca > ca.pem`,
  });
  new CfnOutput(stack, Outputs.AdminSecretArn, {
    value: security.adminSecret.secretArn,
    description: `Secret with the password of the Kafka user ${ADMIN_USER}: npm run ops -- password`,
  });
  new CfnOutput(stack, Outputs.ConnectWith, {
    value:
      `security.protocol=SASL_SSL sasl.mechanism=SCRAM-SHA-512 sasl.username=${ADMIN_USER} ` +
      'sasl.password=$(npm run -s ops -- password) ssl.ca.location=ca.pem (npm run -s ops -- ca > ca.pem); ' +
      'see docs/connect-aws.md',
    description: 'Client settings for the bootstrap servers',
  });
}
