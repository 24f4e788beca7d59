import type { Node } from 'constructs';

/** CPU credit mode for burstable (T-family) instance types. */
export const CpuCreditMode = { Standard: 'standard', Unlimited: 'unlimited' } as const;
export type CpuCreditMode = (typeof CpuCreditMode)[keyof typeof CpuCreditMode];

/**
 * Whether the broker is reachable only with TLS and SASL (the default) or, with -c security=off, in
 * plaintext without authentication as before issue 13 (unsafe: anyone who reaches the port can read,
 * write and delete everything).
 */
export const SecurityMode = { On: 'on', Off: 'off' } as const;
export type SecurityMode = (typeof SecurityMode)[keyof typeof SecurityMode];

/** Log levels the broker understands (LOG_LEVEL). */
const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;

/**
 * Everything the stack can be told with `-c name=value`, parsed and validated once, so the
 * constructs never see raw context strings.
 */
export interface MinnowConfig {
  /** The only source allowed to reach the broker's public port (IPv4 or IPv6 CIDR). */
  readonly allowedCidr: string;
  /** Set when allowedCidr is a /0 and the user confirmed it with allowPublic=true. */
  readonly allowPublic: boolean;
  /** @default 't3.micro' */
  readonly instanceType: string;
  /** @default 20 */
  readonly dataVolumeGiB: number;
  /** @default - an empty volume */
  readonly dataSnapshotId?: string;
  /** @default - no email subscription; subscribe to the AlarmTopicArn output yourself */
  readonly alarmEmail?: string;
  /** @default 'standard' so the free tier is never billed for surplus credits */
  readonly cpuCredits: CpuCreditMode;
  /** @default - the latest Amazon Linux 2023 AMI, resolved from SSM at deploy time */
  readonly amiId?: string;
  /** @default 'info' */
  readonly logLevel: string;
  /** @default 'on': SASL_SSL on the public port, plaintext on loopback only */
  readonly security: SecurityMode;
  /** Days CloudWatch Logs keeps the broker's log and the agent's metric events. @default 30 */
  readonly logRetentionDays: number;
}

export const DEFAULT_INSTANCE_TYPE = 't3.micro';
export const DEFAULT_DATA_VOLUME_GIB = 20;
export const DEFAULT_LOG_RETENTION_DAYS = 30;
/** The retention periods CloudWatch Logs accepts (PutRetentionPolicy); anything else fails the deploy. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

const EXAMPLE = 'npx cdk deploy -c allowedCidr=203.0.113.7/32';

function str(node: Node, name: string): string | undefined {
  const value: unknown = node.tryGetContext(name);
  if (value === undefined || value === null || value === '') return undefined;
  return String(value).trim();
}

function bool(node: Node, name: string): boolean {
  const value = str(node, name);
  if (value === undefined) return false;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`context ${name}="${value}" is not a boolean: pass -c ${name}=true or -c ${name}=false`);
}

function checkCidr(cidr: string): { prefixLength: number } {
  const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  if (ipv4) {
    const octets = ipv4.slice(1, 5).map(Number);
    const prefixLength = Number(ipv4[5]);
    if (octets.every((o) => o <= 255) && prefixLength <= 32) return { prefixLength };
  }
  // The stack's VPC and instance are IPv4-only (no IPv6 CIDR, no IPv6 address): an IPv6 rule would
  // admit nobody, and the user would see a broker that never answers.
  if (/^[0-9a-fA-F:]+\/\d{1,3}$/.test(cidr) && cidr.includes(':')) {
    throw new Error(
      `context allowedCidr="${cidr}" is an IPv6 block, but the stack's VPC and instance have IPv4 only, so no ` +
        `IPv6 client could reach the broker: pass your IPv4 address, e.g. $(curl -4 -s https://checkip.amazonaws.com)/32`,
    );
  }
  throw new Error(
    `context allowedCidr="${cidr}" is not a CIDR block: use an address with a prefix length, ` +
      `e.g. 203.0.113.7/32 for one address (${EXAMPLE})`,
  );
}

/** Reads and validates the context values; throws an Error that says what to pass instead. */
export function readConfig(node: Node): MinnowConfig {
  const security = str(node, 'security') ?? SecurityMode.On;
  if (security !== SecurityMode.On && security !== SecurityMode.Off) {
    throw new Error(
      `context security="${security}" must be on (the default: TLS and SASL) or off (plaintext, no authentication: unsafe)`,
    );
  }
  const allowedCidr = str(node, 'allowedCidr');
  if (allowedCidr === undefined) {
    throw new Error(
      'missing context value allowedCidr: the only source allowed to reach the broker. ' +
        `Pass your client's address as a CIDR, e.g. ${EXAMPLE} ` +
        '(curl -s https://checkip.amazonaws.com prints your public IPv4 address).',
    );
  }
  const allowPublic = bool(node, 'allowPublic');
  if (checkCidr(allowedCidr).prefixLength === 0 && !allowPublic) {
    const risk =
      security === SecurityMode.Off
        ? 'opens port 9092 to the whole internet, and with security=off the broker has no authentication'
        : 'opens port 9093 to the whole internet: clients still need TLS and a password, but anyone may try passwords';
    throw new Error(
      `context allowedCidr=${allowedCidr} ${risk}. Use your own address (e.g. 203.0.113.7/32), ` +
        'or confirm with -c allowPublic=true.',
    );
  }

  const instanceType = str(node, 'instanceType') ?? DEFAULT_INSTANCE_TYPE;
  if (!/^[a-z]+\d{1,2}[a-z-]*\.[a-z0-9-]+$/.test(instanceType)) {
    throw new Error(`context instanceType="${instanceType}" is not an EC2 instance type, e.g. t3.micro or m7g.large`);
  }

  const sizeText = str(node, 'dataVolumeGiB');
  const dataVolumeGiB = sizeText === undefined ? DEFAULT_DATA_VOLUME_GIB : Number(sizeText);
  if (!Number.isInteger(dataVolumeGiB) || dataVolumeGiB < 1 || dataVolumeGiB > 16384) {
    throw new Error(`context dataVolumeGiB="${sizeText}" must be a whole number of GiB between 1 and 16384`);
  }

  const dataSnapshotId = str(node, 'dataSnapshotId');
  if (dataSnapshotId !== undefined && !/^snap-[0-9a-f]{8,17}$/.test(dataSnapshotId)) {
    throw new Error(`context dataSnapshotId="${dataSnapshotId}" is not a snapshot id like snap-0123456789abcdef0`);
  }

  const alarmEmail = str(node, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new Error(`context alarmEmail="${alarmEmail}" is not an email address`);
  }

  const cpuCredits = str(node, 'cpuCredits') ?? CpuCreditMode.Standard;
  if (cpuCredits !== CpuCreditMode.Standard && cpuCredits !== CpuCreditMode.Unlimited) {
    throw new Error(`context cpuCredits="${cpuCredits}" must be standard or unlimited`);
  }

  const amiId = str(node, 'amiId');
  if (amiId !== undefined && !/^ami-[0-9a-f]{8,17}$/.test(amiId)) {
    throw new Error(`context amiId="${amiId}" is not an AMI id like ami-0123456789abcdef0`);
  }

  const logLevel = str(node, 'logLevel') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new Error(`context logLevel="${logLevel}" must be one of ${LOG_LEVELS.join(', ')}`);
  }

  const retentionText = str(node, 'logRetentionDays');
  const logRetentionDays = retentionText === undefined ? DEFAULT_LOG_RETENTION_DAYS : Number(retentionText);
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(logRetentionDays)) {
    throw new Error(
      `context logRetentionDays="${retentionText}" is not a retention CloudWatch Logs accepts: use one of ${LOG_RETENTION_DAYS.join(', ')}`,
    );
  }

  return {
    allowedCidr,
    allowPublic,
    instanceType,
    dataVolumeGiB,
    ...(dataSnapshotId !== undefined && { dataSnapshotId }),
    ...(alarmEmail !== undefined && { alarmEmail }),
    cpuCredits,
    ...(amiId !== undefined && { amiId }),
    logLevel,
    security,
    logRetentionDays,
  };
}
