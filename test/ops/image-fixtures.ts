import { DescribeImagesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { type AwsStub, mockClient } from 'aws-sdk-client-mock';
import type { ServiceInputTypes, ServiceOutputTypes } from '@aws-sdk/client-ec2';

// Images as EC2 and SSM describe them, relative to fixtures' NOW (2026-06-01T12:00Z).

/** What the fixtures' instances run (instanceResponse, brokerResponse): 61 days old. */
export const RUNNING_AMI = 'ami-0123456789abcdef0';
/** The latest AL2023 for x86_64 and arm64: 4 days old. */
export const LATEST_X86 = 'ami-0fedcba9876543210';
export const LATEST_ARM = 'ami-0a1b2c3d4e5f6a7b8';

export const IMAGES = [
  {
    ImageId: RUNNING_AMI,
    Name: 'al2023-ami-2023.7.20260401.0-kernel-6.1-x86_64',
    CreationDate: '2026-04-01T10:00:00.000Z',
    Architecture: 'x86_64' as const,
  },
  {
    ImageId: LATEST_X86,
    Name: 'al2023-ami-2023.8.20260528.0-kernel-6.1-x86_64',
    CreationDate: '2026-05-28T10:00:00.000Z',
    Architecture: 'x86_64' as const,
  },
  {
    ImageId: LATEST_ARM,
    Name: 'al2023-ami-2023.8.20260528.0-kernel-6.1-arm64',
    CreationDate: '2026-05-28T10:00:00.000Z',
    Architecture: 'arm64' as const,
  },
];

/** DescribeImages answers for the known images; SSM's public parameters name the latest ones. */
export function imageMocks(ec2: AwsStub<ServiceInputTypes, ServiceOutputTypes, EC2Client['config']>) {
  ec2.on(DescribeImagesCommand).callsFake((input: { ImageIds?: string[] }) => ({
    Images: IMAGES.filter((i) => input.ImageIds?.includes(i.ImageId)),
  }));
  const ssm = mockClient(SSMClient);
  ssm
    .on(GetParameterCommand, { Name: '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64' })
    .resolves({ Parameter: { Value: LATEST_X86 } });
  ssm
    .on(GetParameterCommand, { Name: '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-arm64' })
    .resolves({ Parameter: { Value: LATEST_ARM } });
  return ssm;
}
