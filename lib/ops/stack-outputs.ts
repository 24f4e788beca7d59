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

/** A storage=postgres cluster's outputs (MinnowPostgresStack: lib/postgres-stack.ts). */
export interface ClusterOutputs {
  /** The brokers' instances, node ids 1..N in this order. */
  readonly instanceIds: readonly string[];
  /** host:port of the RDS instance. */
  readonly databaseEndpoint: string;
  readonly bootstrapServers: string;
}

export type StackKind = { readonly kind: 'single' } | ({ readonly kind: 'cluster' } & ClusterOutputs);

/** Only the cluster has a database: DatabaseEndpoint tells the stacks apart (InstanceIds too: cluster only). */
const isCluster = (outputs: ReadonlyMap<string, string>): boolean =>
  outputs.has('DatabaseEndpoint') || outputs.has('InstanceIds');

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

/**
 * Which kind of minnow stack `stackName` is, with the cluster's outputs; a single-instance stack's
 * own outputs are checked by readStackOutputs when a command needs them.
 */
export async function readStackKind(clients: OpsClients, stackName: string): Promise<StackKind> {
  const { stack, outputs } = await describeOutputs(clients, stackName);
  if (!isCluster(outputs)) return { kind: 'single' };
  const databaseEndpoint = outputs.get('DatabaseEndpoint');
  const instanceIds = (outputs.get('InstanceIds') ?? '').split(',').filter((id) => id !== '');
  if (!databaseEndpoint || instanceIds.length === 0) {
    throw new OpsError(
      `stack "${stackName}" lacks its DatabaseEndpoint or InstanceIds output (status ${stack.StackStatus ?? 'unknown'}): ` +
        'has its deploy finished?',
    );
  }
  return { kind: 'cluster', instanceIds, databaseEndpoint, bootstrapServers: outputs.get('BootstrapServers') ?? '' };
}

export async function readStackOutputs(clients: OpsClients, stackName: string): Promise<StackOutputs> {
  const { stack, outputs } = await describeOutputs(clients, stackName);
  const get = (key: string): string => {
    const value = outputs.get(key);
    if (!value && isCluster(outputs)) {
      throw new OpsError(
        `stack "${stackName}" is a storage=postgres cluster (several brokers, no data volume): this step works on ` +
          'single-instance stacks only (docs/cluster.md, "Operating a cluster").',
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
