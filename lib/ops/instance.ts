import { DescribeInstancesCommand, type Instance } from '@aws-sdk/client-ec2';
import type { OpsClients, OpsRuntime } from './clients';
import { OpsError } from './errors';

export interface InstanceInfo {
  readonly id: string;
  readonly state: string;
  readonly type: string;
  readonly architecture: string;
  readonly publicIp: string | undefined;
  readonly availabilityZone: string | undefined;
  readonly imageId: string | undefined;
}

export async function describeInstance(clients: OpsClients, instanceId: string): Promise<InstanceInfo> {
  const response = await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
  const instance: Instance | undefined = response.Reservations?.[0]?.Instances?.[0];
  if (!instance) throw new OpsError(`instance ${instanceId} not found: was it terminated outside CloudFormation?`);
  return {
    id: instanceId,
    state: instance.State?.Name ?? 'unknown',
    type: instance.InstanceType ?? 'unknown',
    architecture: instance.Architecture ?? 'unknown',
    publicIp: instance.PublicIpAddress,
    availabilityZone: instance.Placement?.AvailabilityZone,
    imageId: instance.ImageId,
  };
}

/** Polls until the instance reaches `state`, logging each change; throws after `timeoutMs`. */
export async function waitForState(
  clients: OpsClients,
  runtime: OpsRuntime,
  instanceId: string,
  state: 'running' | 'stopped',
  opts: { pollMs?: number; timeoutMs?: number } = {},
): Promise<InstanceInfo> {
  const pollMs = opts.pollMs ?? 5_000;
  const deadline = runtime.now().getTime() + (opts.timeoutMs ?? 10 * 60_000);
  let last = '';
  for (;;) {
    const info = await describeInstance(clients, instanceId);
    if (info.state !== last) runtime.log(`  ${instanceId}: ${info.state}`);
    last = info.state;
    if (info.state === state) return info;
    if (info.state === 'terminated' || info.state === 'shutting-down') {
      throw new OpsError(`instance ${instanceId} is ${info.state}; it will not become ${state}`);
    }
    if (runtime.now().getTime() >= deadline) {
      throw new OpsError(`instance ${instanceId} is still ${info.state}, not ${state}; check the EC2 console`);
    }
    await runtime.sleep(pollMs);
  }
}
