import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { type _InstanceType } from '@aws-sdk/client-ec2';
import { RDSClient, type DBInstance } from '@aws-sdk/client-rds';
import { mockClient } from 'aws-sdk-client-mock';
import { NOW, mocks } from './fixtures';

// A storage=postgres stack (lib/postgres-stack.ts) with two brokers, as its outputs name them.
export const CLUSTER = 'MinnowCluster';
export const BROKER_IDS = ['i-0aaaaaaaaaaaaaaa1', 'i-0aaaaaaaaaaaaaaa2'] as const;
export const BROKER_IPS = ['198.51.100.7', '198.51.100.8'] as const;
export const DB_ID = 'minnowcluster-databaseb269d8bb-abcdefghijkl';
export const DB_ENDPOINT = `${DB_ID}.c9akciq32.eu-west-2.rds.amazonaws.com:5432`;

export function clusterMocks() {
  const m = mocks();
  m.cfn.on(DescribeStacksCommand, { StackName: CLUSTER }).resolves({
    Stacks: [
      {
        StackName: CLUSTER,
        StackStatus: 'UPDATE_COMPLETE',
        CreationTime: NOW,
        Outputs: [
          { OutputKey: 'BootstrapServers', OutputValue: BROKER_IPS.map((ip) => `${ip}:9093`).join(',') },
          { OutputKey: 'DatabaseEndpoint', OutputValue: DB_ENDPOINT },
          { OutputKey: 'DatabaseSecretArn', OutputValue: 'arn:aws:secretsmanager:eu-west-2:111111111111:secret:db' },
          { OutputKey: 'InstanceIds', OutputValue: BROKER_IDS.join(',') },
          { OutputKey: 'DashboardName', OutputValue: 'MinnowCluster-dashboard' },
          { OutputKey: 'AlarmTopicArn', OutputValue: 'arn:aws:sns:eu-west-2:111111111111:alarms' },
        ],
      },
    ],
  });
  return { ...m, rds: mockClient(RDSClient) };
}

/** Broker `index` (0-based) in `state`; a stopped one has no public address. */
export function brokerResponse(index: number, state: string, type = 't3.micro') {
  return {
    Reservations: [
      {
        Instances: [
          {
            InstanceId: BROKER_IDS[index],
            State: { Name: state as 'running' },
            InstanceType: type as _InstanceType,
            Architecture: 'x86_64' as const,
            PublicIpAddress: state === 'running' ? BROKER_IPS[index] : undefined,
            Placement: { AvailabilityZone: index === 0 ? 'eu-west-2a' : 'eu-west-2b' },
            ImageId: 'ami-0123456789abcdef0',
          },
        ],
      },
    ],
  };
}

export function dbInstance(overrides: Partial<DBInstance> = {}): { DBInstances: DBInstance[] } {
  return {
    DBInstances: [
      {
        DBInstanceIdentifier: DB_ID,
        DBInstanceStatus: 'available',
        DBInstanceClass: 'db.t4g.micro',
        Engine: 'postgres',
        EngineVersion: '16.4',
        MultiAZ: true,
        AvailabilityZone: 'eu-west-2a',
        SecondaryAvailabilityZone: 'eu-west-2b',
        AllocatedStorage: 20,
        PendingModifiedValues: {},
        ...overrides,
      },
    ],
  };
}
