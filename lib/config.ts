import type { Node } from 'constructs';
import { type ImageArchitecture, imageToRemember, readImage } from './image-config';
import {
  type PostgresConfig,
  StorageMode,
  clusterToRemember,
  readPostgresConfig,
  readStorageMode,
} from './postgres-config';
import { DEFAULT_STACK_NAME, REMEMBERED_NONE, Remembered, rememberedKey } from './remembered-context';

export { DEFAULT_STACK_NAME, REMEMBERED_NONE, Remembered, rememberedKey } from './remembered-context';

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
  /**
   * The Amazon Linux 2023 image, pinned: no default at synth. `npm run ops -- preflight` resolves it
   * once (the deployed instance's, or the latest for a new stack) and `ops image --update` moves it;
   * see readImage. A new image REPLACES the instance(s).
   */
  readonly amiId: string;
  /** The pinned image's architecture, which must be the instance type's. */
  readonly amiArchitecture: ImageArchitecture;
  /** @default 'info' */
  readonly logLevel: string;
  /** @default 'on': SASL_SSL on the public port, plaintext on loopback only */
  readonly security: SecurityMode;
  /**
   * The one zone of the subnet, the instance and the data volume. No default at synth: `npm run ops --
   * preflight` resolves it once and remembers it (see Remembered); a new zone would replace the volume.
   */
  readonly availabilityZone: string;
  /** @default - the account's default EBS encryption key (aws/ebs unless the account set a customer-managed one) */
  readonly dataVolumeKmsKeyArn?: string;
  /** Daily DLM snapshots of the data volume kept this many days; 0 turns them off. @default 7 */
  readonly snapshotRetentionDays: number;
  /** Days CloudWatch Logs keeps the broker's log and the agent's metric events. @default 30 */
  readonly logRetentionDays: number;
  /**
   * -c storage=postgres: several brokers on one RDS PostgreSQL (lib/postgres-stack.ts). Then
   * availabilityZone is the first of postgres.availabilityZones and the data volume values are unused.
   * @default - one broker on one SQLite file (lib/minnow-stack.ts)
   */
  readonly postgres?: PostgresConfig;
}

export const DEFAULT_INSTANCE_TYPE = 't3.micro';
export const DEFAULT_DATA_VOLUME_GIB = 20;
export const DEFAULT_SNAPSHOT_RETENTION_DAYS = 7;

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

  const stackName = str(node, 'stackName') ?? DEFAULT_STACK_NAME;
  const { amiId, amiArchitecture } = readImage(node, stackName, instanceType);
  if (readStorageMode(node, stackName) === StorageMode.Postgres) {
    // Several brokers on one RDS PostgreSQL: no data volume, so none of its remembered values.
    const postgres = readPostgresConfig(node, stackName);
    return {
      allowedCidr,
      allowPublic,
      instanceType,
      dataVolumeGiB: DEFAULT_DATA_VOLUME_GIB,
      ...(alarmEmail !== undefined && { alarmEmail }),
      cpuCredits,
      amiId,
      amiArchitecture,
      logLevel,
      security,
      availabilityZone: postgres.availabilityZones[0]!,
      snapshotRetentionDays: 0,
      logRetentionDays,
      postgres,
    };
  }
  const volume = readVolumeValues(node, sizeText === undefined ? undefined : dataVolumeGiB, dataSnapshotId);
  return {
    allowedCidr,
    allowPublic,
    instanceType,
    dataVolumeGiB: volume.dataVolumeGiB,
    ...(volume.dataSnapshotId !== undefined && { dataSnapshotId: volume.dataSnapshotId }),
    ...(alarmEmail !== undefined && { alarmEmail }),
    cpuCredits,
    amiId,
    amiArchitecture,
    logLevel,
    security,
    availabilityZone: volume.availabilityZone,
    ...(volume.dataVolumeKmsKeyArn !== undefined && { dataVolumeKmsKeyArn: volume.dataVolumeKmsKeyArn }),
    snapshotRetentionDays: volume.snapshotRetentionDays,
    logRetentionDays,
  };
}

const AZ_PATTERN = /^([a-z]{2}(?:-[a-z]+)+-\d+)[a-z]$/;
const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:([a-z]{2}(?:-[a-z]+)+-\d+):\d{12}:key\/(?:mrk-)?[0-9a-f-]{32,36}$/;

/**
 * The data volume's zone, key, snapshot, size and backups: the -c values checked against what
 * cdk.context.json remembers for this stack (see Remembered), so a later deploy cannot move,
 * blank or shrink the volume by leaving out or changing a value.
 */
function readVolumeValues(
  node: Node,
  givenGiB: number | undefined,
  givenSnapshotId: string | undefined,
): Pick<
  MinnowConfig,
  'availabilityZone' | 'dataVolumeGiB' | 'dataSnapshotId' | 'dataVolumeKmsKeyArn' | 'snapshotRetentionDays'
> {
  const stackName = str(node, 'stackName') ?? DEFAULT_STACK_NAME;
  const remembered = (name: Remembered) => {
    const key = rememberedKey(stackName, name);
    return { key, value: str(node, key) };
  };
  const reset = (key: string) => `npx cdk context --reset ${key}`;

  const az = remembered(Remembered.availabilityZone);
  const givenAz = str(node, 'availabilityZone');
  for (const value of [givenAz, az.value]) {
    if (value !== undefined && !AZ_PATTERN.test(value)) {
      throw new Error(`context availabilityZone="${value}" is not an availability zone name like eu-west-2a`);
    }
  }
  if (givenAz !== undefined && az.value !== undefined && givenAz !== az.value) {
    throw new Error(
      `context availabilityZone=${givenAz}, but stack ${stackName}'s data volume is in ${az.value} ` +
        `(cdk.context.json: ${az.key}). Another zone would REPLACE the volume with a blank one. Leave out ` +
        `-c availabilityZone to keep ${az.value}; to move the broker, snapshot it (npm run ops -- snapshot) and ` +
        'restore into a new stack in the other zone (docs/deploy.md, Restore).',
    );
  }
  const availabilityZone = givenAz ?? az.value;
  if (availabilityZone === undefined) {
    const stackFlag = stackName === DEFAULT_STACK_NAME ? '' : ` --stack ${stackName}`;
    throw new Error(
      'missing context value availabilityZone: the zone of the instance and its data volume, chosen once. Run ' +
        `\`npm run ops -- preflight${stackFlag} --region <your region>\` before deploying (it writes the zone to ` +
        "cdk.context.json: the deployed volume's zone for an existing stack, else the first zone that offers the " +
        'instance type), or pass -c availabilityZone=<zone>, e.g. eu-west-2a.',
    );
  }
  const region = AZ_PATTERN.exec(availabilityZone)?.[1];

  const key = remembered(Remembered.dataVolumeKmsKeyArn);
  const givenKey = str(node, 'dataVolumeKmsKeyArn');
  if (givenKey !== undefined && !KMS_KEY_ARN.test(givenKey)) {
    throw new Error(
      `context dataVolumeKmsKeyArn="${givenKey}" is not a KMS key ARN like ` +
        'arn:aws:kms:eu-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab (an alias or key id cannot ' +
        'scope the instance role: aws kms describe-key --key-id alias/NAME --query KeyMetadata.Arn prints the ARN)',
    );
  }
  if (givenKey !== undefined && KMS_KEY_ARN.exec(givenKey)?.[1] !== region) {
    throw new Error(
      `context dataVolumeKmsKeyArn is a key in ${KMS_KEY_ARN.exec(givenKey)?.[1]}, but the volume is in ` +
        `${availabilityZone}: EBS needs a key of the volume's region (${region})`,
    );
  }
  if (key.value !== undefined && (givenKey ?? REMEMBERED_NONE) !== key.value) {
    const was = key.value === REMEMBERED_NONE ? "the account's default EBS key" : key.value;
    throw new Error(
      `context dataVolumeKmsKeyArn=${givenKey ?? '(none)'}, but stack ${stackName}'s data volume was created ` +
        `encrypted with ${was} (cdk.context.json: ${key.key}). Another key would REPLACE the volume with a blank ` +
        `one. Pass ${key.value === REMEMBERED_NONE ? 'no dataVolumeKmsKeyArn' : `-c dataVolumeKmsKeyArn=${key.value}`}; ` +
        `if the stack was never deployed with it, ${reset(key.key)}.`,
    );
  }

  const snapshot = remembered(Remembered.dataSnapshotId);
  if (snapshot.value !== undefined && givenSnapshotId !== undefined && givenSnapshotId !== snapshot.value) {
    const was = snapshot.value === REMEMBERED_NONE ? 'blank' : `from ${snapshot.value}`;
    throw new Error(
      `context dataSnapshotId=${givenSnapshotId}, but stack ${stackName}'s data volume was created ${was} ` +
        `(cdk.context.json: ${snapshot.key}). A different snapshot would REPLACE the running volume. Restore into a ` +
        `new stack instead (-c stackName=${stackName}Restored -c dataSnapshotId=${givenSnapshotId}, docs/deploy.md, ` +
        `Restore); if this stack was never deployed with it, ${reset(snapshot.key)}.`,
    );
  }
  if (
    snapshot.value !== undefined &&
    snapshot.value !== REMEMBERED_NONE &&
    !/^snap-[0-9a-f]{8,17}$/.test(snapshot.value)
  ) {
    throw new Error(
      `cdk.context.json: ${snapshot.key}="${snapshot.value}" is not a snapshot id or "none"; fix or remove it`,
    );
  }
  const snapshotId = givenSnapshotId ?? snapshot.value;
  const dataSnapshotId = snapshotId === REMEMBERED_NONE ? undefined : snapshotId;

  const size = remembered(Remembered.dataVolumeGiB);
  const rememberedGiB = size.value === undefined ? undefined : Number(size.value);
  if (rememberedGiB !== undefined && !(Number.isInteger(rememberedGiB) && rememberedGiB >= 1)) {
    throw new Error(`cdk.context.json: ${size.key}="${size.value}" is not a whole number of GiB; fix or remove it`);
  }
  if (givenGiB !== undefined && rememberedGiB !== undefined && givenGiB < rememberedGiB) {
    throw new Error(
      `context dataVolumeGiB=${givenGiB}, but stack ${stackName}'s data volume has ${rememberedGiB} GiB ` +
        `(cdk.context.json: ${size.key}) and EBS volumes cannot shrink. Leave out -c dataVolumeGiB or pass ` +
        `${rememberedGiB} or more; if the stack never had ${rememberedGiB} GiB, ${reset(size.key)}.`,
    );
  }
  const dataVolumeGiB = givenGiB ?? rememberedGiB ?? DEFAULT_DATA_VOLUME_GIB;

  const retentionText = str(node, 'snapshotRetentionDays');
  const snapshotRetentionDays = retentionText === undefined ? DEFAULT_SNAPSHOT_RETENTION_DAYS : Number(retentionText);
  if (!Number.isInteger(snapshotRetentionDays) || snapshotRetentionDays < 0 || snapshotRetentionDays > 3650) {
    throw new Error(
      `context snapshotRetentionDays="${retentionText}" must be a whole number of days from 0 (no scheduled ` +
        'snapshots) to 3650',
    );
  }

  return {
    availabilityZone,
    dataVolumeGiB,
    ...(dataSnapshotId !== undefined && { dataSnapshotId }),
    ...(givenKey !== undefined && { dataVolumeKmsKeyArn: givenKey }),
    snapshotRetentionDays,
  };
}

/**
 * The cdk.context.json entries bin/minnow.ts writes (see Remembered): the image for both kinds; for
 * a single stack the data volume's zone, key ("none": the account default), snapshot ("none": blank)
 * and size; for a cluster its storage, zones and broker count.
 */
export function valuesToRemember(stackName: string, config: MinnowConfig): Record<string, string | number> {
  const image = imageToRemember(stackName, config);
  if (config.postgres) return { ...clusterToRemember(stackName, config.postgres), ...image };
  return {
    [rememberedKey(stackName, Remembered.availabilityZone)]: config.availabilityZone,
    [rememberedKey(stackName, Remembered.dataVolumeKmsKeyArn)]: config.dataVolumeKmsKeyArn ?? REMEMBERED_NONE,
    [rememberedKey(stackName, Remembered.dataSnapshotId)]: config.dataSnapshotId ?? REMEMBERED_NONE,
    [rememberedKey(stackName, Remembered.dataVolumeGiB)]: config.dataVolumeGiB,
    ...image,
  };
}
