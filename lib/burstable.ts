import { InstanceType } from 'aws-cdk-lib/aws-ec2';

/**
 * CPU credits earned per hour by burstable sizes (one credit = one vCPU at 100 % for one minute).
 * From the EC2 burstable-performance credit table; a standard-mode instance can bank 24 hours' worth.
 * https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/burstable-credits-baseline-concepts.html
 */
const T3_SIZES: Readonly<Record<string, BurstableSize>> = {
  nano: { creditsPerHour: 6, vcpus: 2 },
  micro: { creditsPerHour: 12, vcpus: 2 },
  small: { creditsPerHour: 24, vcpus: 2 },
  medium: { creditsPerHour: 24, vcpus: 2 },
  large: { creditsPerHour: 36, vcpus: 2 },
  xlarge: { creditsPerHour: 96, vcpus: 4 },
  '2xlarge': { creditsPerHour: 192, vcpus: 8 },
};
const FAMILIES: Readonly<Record<string, Readonly<Record<string, BurstableSize>>>> = {
  t2: {
    nano: { creditsPerHour: 3, vcpus: 1 },
    micro: { creditsPerHour: 6, vcpus: 1 },
    small: { creditsPerHour: 12, vcpus: 1 },
    medium: { creditsPerHour: 24, vcpus: 2 },
    large: { creditsPerHour: 36, vcpus: 2 },
    xlarge: { creditsPerHour: 54, vcpus: 4 },
    '2xlarge': { creditsPerHour: 81.6, vcpus: 8 },
  },
  t3: T3_SIZES,
  t3a: T3_SIZES,
  t4g: T3_SIZES,
};

interface BurstableSize {
  readonly creditsPerHour: number;
  readonly vcpus: number;
}

/** True for T-family types, the only ones with CPU credits (and the only ones a credit spec is valid for). */
export function isBurstable(instanceType: string): boolean {
  return new InstanceType(instanceType).isBurstable();
}

/** Credits per hour for a burstable type, or undefined for a type not in the table. */
export function creditsPerHour(instanceType: string): number | undefined {
  return lookup(instanceType)?.creditsPerHour;
}

/**
 * The sustained CPUUtilization (instance-wide, as CloudWatch reports it) that earns exactly as many
 * credits as it spends: credits per hour / 60 minutes / vCPUs. 10 % for a t3.micro.
 */
export function baselineCpuPercent(instanceType: string): number | undefined {
  const size = lookup(instanceType);
  return size && Math.round((size.creditsPerHour / 60 / size.vcpus) * 1000) / 10;
}

function lookup(instanceType: string): BurstableSize | undefined {
  const [family = '', size = ''] = instanceType.split('.');
  return FAMILIES[family]?.[size];
}

/**
 * Threshold for the "credit balance low" alarm: 10 % of the most a standard-mode instance can bank
 * (24 hours of earnings), i.e. about 2.4 hours of earnings. For a t3.micro that is 29 credits:
 * roughly 15 minutes of both vCPUs flat out, time enough to scale up before throttling to baseline.
 */
export function creditBalanceLowThreshold(instanceType: string): number {
  const perHour = creditsPerHour(instanceType) ?? 12;
  return Math.round(perHour * 24 * 0.1);
}
