import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import type { OpsClients } from './clients';
import { OpsError } from './errors';

/** What the ops commands need from the deployed stack's outputs (see MinnowStack's Outputs). */
export interface StackOutputs {
  readonly instanceId: string;
  readonly dataVolumeId: string;
  readonly bootstrapServers: string;
}

export async function readStackOutputs(clients: OpsClients, stackName: string): Promise<StackOutputs> {
  const response = await clients.cloudformation.send(new DescribeStacksCommand({ StackName: stackName }));
  const stack = response.Stacks?.[0];
  if (!stack) throw new OpsError(`stack "${stackName}" not found: pass --stack with the name you deployed`);
  const outputs = new Map((stack.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
  const get = (key: string): string => {
    const value = outputs.get(key);
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
