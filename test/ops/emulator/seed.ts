// What a deployed minnow stack leaves in an account, made with SDK calls against the emulator:
// the VPC and subnet, the instance (tagged like lib/constructs' broker), its data volume and
// Elastic IP, the admin secret, the CA parameter, CPU credit datapoints and alarms, and a
// CloudFormation stack whose Outputs are the ones the ops CLI reads (lib/minnow-stack.ts's
// Outputs; lib/postgres-stack.ts's ClusterOutputs). The stack itself comes from a small template:
// moto 5.2.6 cannot create the synthesized one (see single-stack.test.ts's header).
import { CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { PutMetricAlarmCommand, PutMetricDataCommand, SetAlarmStateCommand } from '@aws-sdk/client-cloudwatch';
import {
  AllocateAddressCommand,
  AssociateAddressCommand,
  AttachVolumeCommand,
  CreateSubnetCommand,
  CreateVolumeCommand,
  CreateVpcCommand,
  RunInstancesCommand,
} from '@aws-sdk/client-ec2';
import { CreateDBInstanceCommand } from '@aws-sdk/client-rds';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, PutParameterCommand } from '@aws-sdk/client-ssm';
import type { OpsClients } from '../../../lib/ops/clients';
import { Outputs } from '../../../lib/minnow-stack';
import { ClusterOutputs } from '../../../lib/postgres-stack';

export const ZONE = 'us-east-1a';
/** The public parameter the kit resolves the AMI from (moto serves a copy of AWS's). */
export const AL2023_PARAMETER = '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64';
export const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBemulator\n-----END CERTIFICATE-----';
export const ADMIN_PASSWORD = 'emulator-admin-password-0123456789';

export interface SeededBroker {
  readonly instanceId: string;
  readonly volumeId: string;
  readonly publicIp: string;
  readonly imageId: string;
}

export interface SeededStack extends SeededBroker {
  readonly stackName: string;
  readonly secretArn: string;
  readonly caParameterName: string;
}

/** A stack of outputs only: one harmless resource (a template needs one), literal values. */
async function createOutputsStack(clients: OpsClients, stackName: string, outputs: Record<string, string>) {
  const template = {
    Resources: { Handle: { Type: 'AWS::CloudFormation::WaitConditionHandle' } },
    Outputs: Object.fromEntries(Object.entries(outputs).map(([key, value]) => [key, { Value: value }])),
  };
  await clients.cloudformation.send(
    new CreateStackCommand({ StackName: stackName, TemplateBody: JSON.stringify(template) }),
  );
}

async function createNetwork(clients: OpsClients): Promise<string> {
  const vpc = await clients.ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/16' }));
  const subnet = await clients.ec2.send(
    new CreateSubnetCommand({ VpcId: vpc.Vpc?.VpcId, CidrBlock: '10.0.0.0/24', AvailabilityZone: ZONE }),
  );
  return subnet.Subnet?.SubnetId ?? '';
}

/** One broker: the AL2023 instance, its encrypted gp3 data volume attached, an Elastic IP on it. */
async function launchBroker(
  clients: OpsClients,
  stackName: string,
  subnetId: string,
  name: string,
  volumeGiB: number,
): Promise<SeededBroker> {
  const ami = await clients.ssm.send(new GetParameterCommand({ Name: AL2023_PARAMETER }));
  const imageId = ami.Parameter?.Value ?? '';
  const volume = await clients.ec2.send(
    new CreateVolumeCommand({
      AvailabilityZone: ZONE,
      Size: volumeGiB,
      VolumeType: 'gp3',
      Encrypted: true,
      TagSpecifications: [
        {
          ResourceType: 'volume',
          Tags: [
            { Key: 'minnow:stack', Value: stackName },
            { Key: 'Name', Value: `${name}-data` },
          ],
        },
      ],
    }),
  );
  const volumeId = volume.VolumeId ?? '';
  const run = await clients.ec2.send(
    new RunInstancesCommand({
      ImageId: imageId,
      InstanceType: 't3.micro',
      MinCount: 1,
      MaxCount: 1,
      SubnetId: subnetId,
      TagSpecifications: [
        {
          ResourceType: 'instance',
          Tags: [
            { Key: 'Name', Value: name },
            { Key: 'minnow:data-volume', Value: volumeId },
          ],
        },
      ],
    }),
  );
  const instanceId = run.Instances?.[0]?.InstanceId ?? '';
  await clients.ec2.send(new AttachVolumeCommand({ VolumeId: volumeId, InstanceId: instanceId, Device: '/dev/sdf' }));
  const eip = await clients.ec2.send(new AllocateAddressCommand({ Domain: 'vpc' }));
  await clients.ec2.send(new AssociateAddressCommand({ AllocationId: eip.AllocationId, InstanceId: instanceId }));
  return { instanceId, volumeId, publicIp: eip.PublicIp ?? '', imageId };
}

/** CPUCreditBalance every 5 minutes over the last hour, draining by 2 per 5 minutes (24/h). */
async function putCreditBalance(clients: OpsClients, instanceId: string, now: Date): Promise<void> {
  const MetricData = Array.from({ length: 12 }, (_, i) => ({
    MetricName: 'CPUCreditBalance',
    Dimensions: [{ Name: 'InstanceId', Value: instanceId }],
    Timestamp: new Date(now.getTime() - (12 - i) * 300_000),
    Value: 100 - 2 * i,
  }));
  await clients.cloudwatch.send(new PutMetricDataCommand({ Namespace: 'AWS/EC2', MetricData }));
}

async function putAlarm(clients: OpsClients, name: string, instanceId: string): Promise<void> {
  await clients.cloudwatch.send(
    new PutMetricAlarmCommand({
      AlarmName: name,
      Namespace: 'AWS/EC2',
      MetricName: 'CPUCreditBalance',
      Dimensions: [{ Name: 'InstanceId', Value: instanceId }],
      Statistic: 'Minimum',
      Period: 300,
      EvaluationPeriods: 3,
      Threshold: 30,
      ComparisonOperator: 'LessThanThreshold',
    }),
  );
  // moto does not evaluate alarms (a new one is OK): set the state status shows.
  await clients.cloudwatch.send(
    new SetAlarmStateCommand({ AlarmName: name, StateValue: 'ALARM', StateReason: 'seeded by the emulator test' }),
  );
}

async function securityResources(clients: OpsClients, stackName: string) {
  const secret = await clients.secretsManager.send(
    new CreateSecretCommand({ Name: `${stackName}-admin-password`, SecretString: ADMIN_PASSWORD }),
  );
  const caParameterName = `/${stackName}/ca-certificate`;
  await clients.ssm.send(new PutParameterCommand({ Name: caParameterName, Value: CA_PEM, Type: 'String' }));
  return { secretArn: secret.ARN ?? '', caParameterName };
}

/** A single-instance stack (storage=sqlite) with security on, `now` being the runtime's clock. */
export async function seedSingleStack(clients: OpsClients, stackName: string, now: Date): Promise<SeededStack> {
  const subnetId = await createNetwork(clients);
  const broker = await launchBroker(clients, stackName, subnetId, 'minnow', 20);
  const security = await securityResources(clients, stackName);
  await putCreditBalance(clients, broker.instanceId, now);
  await putAlarm(clients, `${stackName}-cpu-credit-balance-low`, broker.instanceId);
  await createOutputsStack(clients, stackName, {
    [Outputs.BootstrapServers]: `${broker.publicIp}:9093`,
    [Outputs.InstanceId]: broker.instanceId,
    [Outputs.DataVolumeId]: broker.volumeId,
    [Outputs.CaCertificateParameter]: security.caParameterName,
    [Outputs.AdminSecretArn]: security.secretArn,
  });
  return { stackName, ...broker, ...security };
}

export interface SeededCluster {
  readonly stackName: string;
  readonly brokers: readonly SeededBroker[];
  readonly databaseId: string;
  readonly databaseEndpoint: string;
}

/** A storage=postgres cluster: brokers with 1 GiB volumes and an RDS PostgreSQL instance. */
export async function seedCluster(
  clients: OpsClients,
  stackName: string,
  brokerCount: number,
  now: Date,
): Promise<SeededCluster> {
  const subnetId = await createNetwork(clients);
  const brokers: SeededBroker[] = [];
  for (let n = 1; n <= brokerCount; n++) {
    const broker = await launchBroker(clients, stackName, subnetId, `minnow-broker-${n}`, 1);
    await putCreditBalance(clients, broker.instanceId, now);
    await putAlarm(clients, `${stackName}-broker-${n}-cpu-credit-balance-low`, broker.instanceId);
    brokers.push(broker);
  }
  const databaseId = `${stackName.toLowerCase()}-database`;
  const db = await clients.rds.send(
    new CreateDBInstanceCommand({
      DBInstanceIdentifier: databaseId,
      DBInstanceClass: 'db.t4g.micro',
      Engine: 'postgres',
      EngineVersion: '17.4',
      AllocatedStorage: 20,
      MasterUsername: 'minnow',
      MasterUserPassword: 'emulator-database-password',
      AvailabilityZone: ZONE,
    }),
  );
  const endpoint = db.DBInstance?.Endpoint;
  const databaseEndpoint = `${endpoint?.Address ?? ''}:${endpoint?.Port ?? ''}`;
  await createOutputsStack(clients, stackName, {
    [Outputs.BootstrapServers]: brokers.map((b) => `${b.publicIp}:9093`).join(','),
    [ClusterOutputs.DatabaseEndpoint]: databaseEndpoint,
    [ClusterOutputs.InstanceIds]: brokers.map((b) => b.instanceId).join(','),
  });
  return { stackName, brokers, databaseId, databaseEndpoint };
}
