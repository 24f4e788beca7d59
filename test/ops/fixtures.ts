import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client, DescribeInstancesCommand, type _InstanceType } from '@aws-sdk/client-ec2';
import { RDSClient } from '@aws-sdk/client-rds';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import type { OpsClients, OpsRuntime } from '../../lib/ops/clients';

// The SDK's "Node 20 support ends in 2027" warning is for users of the CLI, not for every test file.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export const STACK = 'Minnow';
export const INSTANCE_ID = 'i-0123456789abcdef0';
export const VOLUME_ID = 'vol-0123456789abcdef0';
export const EIP = '198.51.100.7';
export const NOW = new Date('2026-06-01T12:00:00Z');

export function mocks() {
  const cfn = mockClient(CloudFormationClient);
  const ec2 = mockClient(EC2Client);
  const cw = mockClient(CloudWatchClient);
  cfn.on(DescribeStacksCommand, { StackName: STACK }).resolves({
    Stacks: [
      {
        StackName: STACK,
        StackStatus: 'UPDATE_COMPLETE',
        CreationTime: NOW,
        Outputs: [
          { OutputKey: 'InstanceId', OutputValue: INSTANCE_ID },
          { OutputKey: 'DataVolumeId', OutputValue: VOLUME_ID },
          { OutputKey: 'BootstrapServers', OutputValue: `${EIP}:9092` },
        ],
      },
    ],
  });
  return { cfn, ec2, cw };
}

export function clients(): OpsClients {
  const region = 'eu-west-2';
  return {
    ec2: new EC2Client({ region }),
    cloudwatch: new CloudWatchClient({ region }),
    cloudformation: new CloudFormationClient({ region }),
    ssm: new SSMClient({ region }),
    secretsManager: new SecretsManagerClient({ region }),
    rds: new RDSClient({ region }),
  };
}

/** A runtime whose clock advances only when something sleeps, and which records log lines. */
export function fakeRuntime(): OpsRuntime & { lines: string[]; slept: number[] } {
  let t = NOW.getTime();
  const lines: string[] = [];
  const slept: number[] = [];
  return {
    lines,
    slept,
    now: () => new Date(t),
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
    log: (line) => lines.push(line),
  };
}

export function instanceResponse(state: string, type = 't3.micro', architecture = 'x86_64') {
  return {
    Reservations: [
      {
        Instances: [
          {
            InstanceId: INSTANCE_ID,
            State: { Name: state as 'running' },
            InstanceType: type as _InstanceType,
            Architecture: architecture as 'x86_64',
            PublicIpAddress: state === 'running' ? EIP : undefined,
            Placement: { AvailabilityZone: 'eu-west-2a' },
            ImageId: 'ami-0123456789abcdef0',
          },
        ],
      },
    ],
  };
}

export { DescribeInstancesCommand };
