import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type { Node } from 'constructs';
import { DEFAULT_STACK_NAME, Remembered, rememberedKey } from './remembered-context';

/** The two architectures Amazon Linux 2023 is published for (EC2 DescribeImages' Architecture). */
export const ImageArchitecture = { X86_64: 'x86_64', Arm64: 'arm64' } as const;
export type ImageArchitecture = (typeof ImageArchitecture)[keyof typeof ImageArchitecture];

export const AMI_ID = /^ami-[0-9a-f]{8,17}$/;

/** The public SSM parameter AWS keeps pointing at the newest AL2023 image of one architecture. */
export function latestImageParameter(architecture: ImageArchitecture): string {
  return `/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-${architecture}`;
}

/** The architecture an instance type runs (CDK's list of Graviton families: t4g, m7g, c8g, ...). */
export function architectureOf(instanceType: string): ImageArchitecture {
  return new ec2.InstanceType(instanceType).architecture === ec2.InstanceArchitecture.ARM_64
    ? ImageArchitecture.Arm64
    : ImageArchitecture.X86_64;
}

export function isImageArchitecture(value: string): value is ImageArchitecture {
  return value === ImageArchitecture.X86_64 || value === ImageArchitecture.Arm64;
}

/** The image the instance(s) boot: pinned, never "latest at deploy time" (see readImage). */
export interface ImageConfig {
  readonly amiId: string;
  readonly amiArchitecture: ImageArchitecture;
}

function str(node: Node, name: string): string | undefined {
  const value: unknown = node.tryGetContext(name);
  if (value === undefined || value === null || value === '') return undefined;
  return String(value).trim();
}

/**
 * The pinned image: -c amiId, else the one cdk.context.json remembers for this stack (written by
 * `npm run ops -- preflight` or `ops image --update`). The template names it literally, with no SSM
 * image parameter: CloudFormation would resolve such a parameter again at every deploy and replace
 * the instance once AWS publishes a new image, and the CDK CLI never skips the deploy of a template
 * with an SSM-typed parameter (aws-cdk's toolkit-lib, deployments/cfn-api.ts ParameterValues.hasChanges
 * returns "ssm", which deploy-stack.ts canSkipDeploy treats as a change). An explicit -c amiId that
 * differs from the remembered one is a deliberate move (bin/minnow.ts says so and remembers it); its
 * architecture is taken to be the instance type's, the only one that boots.
 */
export function readImage(node: Node, stackName: string, instanceType: string): ImageConfig {
  const key = rememberedKey(stackName, Remembered.amiId);
  const archKey = rememberedKey(stackName, Remembered.amiArchitecture);
  const given = str(node, 'amiId');
  const remembered = str(node, key);
  const rememberedArch = str(node, archKey);
  if (given !== undefined && !AMI_ID.test(given)) {
    throw new Error(`context amiId="${given}" is not an AMI id like ami-0123456789abcdef0`);
  }
  if (remembered !== undefined && !AMI_ID.test(remembered)) {
    throw new Error(
      `cdk.context.json: ${key}="${remembered}" is not an AMI id like ami-0123456789abcdef0; fix or remove it`,
    );
  }
  if (rememberedArch !== undefined && !isImageArchitecture(rememberedArch)) {
    throw new Error(`cdk.context.json: ${archKey}="${rememberedArch}" must be x86_64 or arm64; fix or remove it`);
  }
  const stackFlag = stackName === DEFAULT_STACK_NAME ? '' : ` --stack ${stackName}`;
  const amiId = given ?? remembered;
  if (amiId === undefined) {
    throw new Error(
      'missing context value amiId: the Amazon Linux 2023 image of the broker instance(s), pinned so that a new ' +
        `image from AWS never replaces the broker by surprise. Run \`npm run ops -- preflight${stackFlag} --region ` +
        '<your region>` before deploying (it writes to cdk.context.json the image the deployed instance runs, or ' +
        "the latest AL2023 for a new stack), or pass -c amiId=ami-... of the instance type's architecture.",
    );
  }
  const typeArchitecture = architectureOf(instanceType);
  const moved = given !== undefined && given !== remembered;
  const amiArchitecture = moved ? typeArchitecture : ((rememberedArch as ImageArchitecture) ?? typeArchitecture);
  if (amiArchitecture !== typeArchitecture) {
    throw new Error(
      `instanceType ${instanceType} is ${typeArchitecture}, but stack ${stackName}'s pinned image ${amiId} is ` +
        `${amiArchitecture} (cdk.context.json: ${key}, ${archKey}), and an instance boots only an image of its own ` +
        `architecture. Pin the latest AL2023 for ${typeArchitecture} with \`npm run ops -- image --update --arch ` +
        `${typeArchitecture}${stackFlag}\`, then deploy with -c instanceType=${instanceType} (this replaces the ` +
        'broker: docs/deploy.md, "Images and patching"); or keep a type of the old architecture.',
    );
  }
  return { amiId, amiArchitecture };
}

/** The cdk.context.json entries that pin the image (see Remembered). */
export function imageToRemember(stackName: string, image: ImageConfig): Record<string, string> {
  return {
    [rememberedKey(stackName, Remembered.amiId)]: image.amiId,
    [rememberedKey(stackName, Remembered.amiArchitecture)]: image.amiArchitecture,
  };
}
