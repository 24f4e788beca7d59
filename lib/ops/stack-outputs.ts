import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { OpsClients } from './clients';
import { OpsError } from './errors';

/** What the ops commands need from the deployed stack's outputs (see MinnowStack's Outputs). */
export interface StackOutputs {
  readonly instanceId: string;
  readonly dataVolumeId: string;
  readonly bootstrapServers: string;
}

/** Where a secure stack keeps what clients need (outputs CaCertificateParameter and AdminSecretArn). */
export interface SecurityOutputs {
  readonly caParameterName: string;
  readonly adminSecretArn: string;
  readonly bootstrapServers: string;
}

async function describeOutputs(clients: OpsClients, stackName: string) {
  const response = await clients.cloudformation.send(new DescribeStacksCommand({ StackName: stackName }));
  const stack = response.Stacks?.[0];
  if (!stack) throw new OpsError(`stack "${stackName}" not found: pass --stack with the name you deployed`);
  const outputs = new Map((stack.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
  return { stack, outputs };
}

export async function readSecurityOutputs(clients: OpsClients, stackName: string): Promise<SecurityOutputs> {
  const { stack, outputs } = await describeOutputs(clients, stackName);
  const caParameterName = outputs.get('CaCertificateParameter');
  const adminSecretArn = outputs.get('AdminSecretArn');
  if (!caParameterName || !adminSecretArn) {
    const why = outputs.has('InstanceId')
      ? 'it was deployed with -c security=off (plaintext, no password, no CA); deploy without it to turn security on'
      : `is it a minnow stack, and has its deploy finished (status ${stack.StackStatus ?? 'unknown'})?`;
    throw new OpsError(`stack "${stackName}" has no CaCertificateParameter/AdminSecretArn output: ${why}`);
  }
  return { caParameterName, adminSecretArn, bootstrapServers: outputs.get('BootstrapServers') ?? '' };
}

export async function readStackOutputs(clients: OpsClients, stackName: string): Promise<StackOutputs> {
  const { stack, outputs } = await describeOutputs(clients, stackName);
  const get = (key: string): string => {
    const value = outputs.get(key);
    if (!value && outputs.has('InstanceIds')) {
      throw new OpsError(
        `stack "${stackName}" is a storage=postgres cluster (several brokers, no data volume): this command works on ` +
          'single-instance stacks; ca and password work on both. Operate the brokers with the AWS CLI (README, ' +
          '"Outgrowing one box").',
      );
    }
    if (!value) {
      throw new OpsError(
        `stack "${stackName}" has no ${key} output (status ${stack.StackStatus ?? 'unknown'}): ` +
          'is it a minnow stack, and has its deploy finished?',
      );
    }
    return value;
  };
  return {
    instanceId: get('InstanceId'),
    dataVolumeId: get('DataVolumeId'),
    bootstrapServers: get('BootstrapServers'),
  };
}
