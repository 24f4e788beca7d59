import { DescribeStacksCommand, GetStackPolicyCommand } from '@aws-sdk/client-cloudformation';
import {
  DescribeAvailabilityZonesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeVolumesCommand,
  GetEbsDefaultKmsKeyIdCommand,
} from '@aws-sdk/client-ec2';
import { DEFAULT_INSTANCE_TYPE, REMEMBERED_NONE, Remembered, rememberedKey } from '../config';
import { StorageMode } from '../postgres-config';
import { readRemembered, rememberInContextFile } from '../remembered-context';
import type { OpsClients } from './clients';
import { OpsError } from './errors';
import { runningImages } from './image';
import { type PinnedImage, resolveImage } from './preflight-image';

/** What the data volume of a deployed stack is: where, how big, from which snapshot. */
export interface DeployedVolume {
  readonly volumeId: string;
  readonly availabilityZone: string;
  readonly sizeGiB: number;
  readonly snapshotId: string | undefined;
  readonly kmsKeyId: string | undefined;
}

export interface PreflightOptions {
  readonly stackName: string;
  /** cdk.context.json (the CLI runs in the repository root). */
  readonly contextFile: string;
  /** @default t3.micro */
  readonly instanceType?: string;
  /** A new storage=postgres cluster (a deployed one is recognized by its outputs). @default sqlite */
  readonly storage?: StorageMode;
}

export interface PreflightReport {
  /** The single stack's zone; undefined for a cluster (its zones are -c availabilityZones, then remembered). */
  readonly availabilityZone: string | undefined;
  /** Where the zone came from. */
  readonly source: 'deployed volume' | 'remembered' | 'chosen' | undefined;
  /** The image the next deploy boots (pinned in cdk.context.json). */
  readonly image: PinnedImage;
  readonly storage: StorageMode;
  /** The cdk.context.json keys this run wrote. */
  readonly remembered: string[];
  /** Advice: the account's EBS key, the stack policy. */
  readonly notes: string[];
}

/** The stack's data volume, or undefined when the stack does not exist (a first deploy). */
export async function describeDeployedVolume(
  clients: OpsClients,
  stackName: string,
): Promise<DeployedVolume | undefined> {
  let outputs;
  try {
    const response = await clients.cloudformation.send(new DescribeStacksCommand({ StackName: stackName }));
    outputs = response.Stacks?.[0]?.Outputs ?? [];
  } catch (err) {
    const e = err as { name?: string; message?: string };
    if (e.name === 'ValidationError' && /does not exist/i.test(e.message ?? '')) return undefined;
    throw err;
  }
  const volumeId = outputs.find((o) => o.OutputKey === 'DataVolumeId')?.OutputValue;
  if (!volumeId) {
    throw new OpsError(
      `stack "${stackName}" exists but has no DataVolumeId output: is its first deploy still running, or did ` +
        'it fail? Wait for it, or delete the failed stack, then run preflight again',
    );
  }
  const volumes = await clients.ec2.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }));
  const volume = volumes.Volumes?.[0];
  if (!volume?.AvailabilityZone) throw new OpsError(`volume ${volumeId} of stack "${stackName}" was not found`);
  return {
    volumeId,
    availabilityZone: volume.AvailabilityZone,
    sizeGiB: volume.Size ?? 0,
    snapshotId: volume.SnapshotId ? volume.SnapshotId : undefined,
    kmsKeyId: volume.KmsKeyId,
  };
}

/** Opted-in, available standard zones of the region that offer the type, sorted by name. */
export async function zonesOffering(clients: OpsClients, instanceType: string): Promise<string[]> {
  const zones = await clients.ec2.send(
    new DescribeAvailabilityZonesCommand({
      Filters: [
        { Name: 'zone-type', Values: ['availability-zone'] },
        { Name: 'state', Values: ['available'] },
      ],
    }),
  );
  const offerings = await clients.ec2.send(
    new DescribeInstanceTypeOfferingsCommand({
      LocationType: 'availability-zone',
      Filters: [{ Name: 'instance-type', Values: [instanceType] }],
    }),
  );
  const offered = new Set((offerings.InstanceTypeOfferings ?? []).map((o) => o.Location));
  return (zones.AvailabilityZones ?? [])
    .map((z) => z.ZoneName ?? '')
    .filter((name) => name !== '' && offered.has(name))
    .sort();
}

/**
 * Run before a deploy. For a deployed stack: the zone is its data volume's, and cdk.context.json
 * must agree (a different zone would replace the volume); the volume's size and snapshot are
 * remembered too. For a new stack: the first zone that offers the instance type, remembered so that
 * every later deploy uses it. Also says when the account's default EBS key needs
 * -c dataVolumeKmsKeyArn, and when the stack has no stack policy yet (npm run ops -- protect).
 */
export async function preflight(clients: OpsClients, opts: PreflightOptions): Promise<PreflightReport> {
  const { stackName, contextFile } = opts;
  const instanceType = opts.instanceType ?? DEFAULT_INSTANCE_TYPE;
  const key = (name: Remembered) => rememberedKey(stackName, name);
  const running = await runningImages(clients, stackName);
  const {
    image,
    entries: imageEntries,
    notes,
  } = await resolveImage(clients, { stackName, contextFile, instanceType, running });
  const cluster =
    running === undefined
      ? (opts.storage ?? readRemembered(contextFile, key(Remembered.storage))) === StorageMode.Postgres
      : running.some((r) => r.nodeId !== undefined);
  if (cluster) {
    // Its zones and broker count are written by the first deploy (bin/minnow.ts); here the image and
    // the storage, so that a deploy without -c storage=postgres still synthesizes the cluster.
    const entries = { ...imageEntries, [key(Remembered.storage)]: StorageMode.Postgres };
    const remembered = rememberInContextFile(contextFile, entries);
    const storage = StorageMode.Postgres;
    return { availabilityZone: undefined, source: undefined, image, storage, remembered, notes };
  }
  const rememberedZone = readRemembered(contextFile, key(Remembered.availabilityZone));
  const deployed = await describeDeployedVolume(clients, stackName);
  const entries: Record<string, string | number> = { ...imageEntries };
  let availabilityZone: string;
  let source: PreflightReport['source'];

  if (deployed) {
    if (rememberedZone !== undefined && rememberedZone !== deployed.availabilityZone) {
      throw new OpsError(
        `${contextFile} says ${key(Remembered.availabilityZone)}=${rememberedZone}, but the data volume ` +
          `${deployed.volumeId} of stack "${stackName}" is in ${deployed.availabilityZone}: a deploy would REPLACE ` +
          `it with a blank volume. Run \`npx cdk context --reset ${key(Remembered.availabilityZone)}\` and preflight ` +
          'again to keep the deployed zone',
      );
    }
    availabilityZone = deployed.availabilityZone;
    source = 'deployed volume';
    entries[key(Remembered.availabilityZone)] = availabilityZone;
    // A stack deployed before the kit remembered values: pin what the volume was created with.
    const rememberedSnapshot = readRemembered(contextFile, key(Remembered.dataSnapshotId));
    if (rememberedSnapshot === undefined) {
      entries[key(Remembered.dataSnapshotId)] = deployed.snapshotId ?? REMEMBERED_NONE;
    }
    const rememberedGiB = Number(readRemembered(contextFile, key(Remembered.dataVolumeGiB)) ?? 0);
    if (deployed.sizeGiB > rememberedGiB) entries[key(Remembered.dataVolumeGiB)] = deployed.sizeGiB;
    const policy = await clients.cloudformation.send(new GetStackPolicyCommand({ StackName: stackName }));
    if (!policy.StackPolicyBody) {
      notes.push(
        `stack "${stackName}" has no stack policy: \`npm run ops -- protect\` makes CloudFormation refuse any ` +
          'update that would replace or delete the data volume',
      );
    }
  } else {
    const zones = await zonesOffering(clients, instanceType);
    if (rememberedZone !== undefined) {
      if (!zones.includes(rememberedZone)) {
        throw new OpsError(
          `${contextFile} says ${key(Remembered.availabilityZone)}=${rememberedZone}, which does not offer ` +
            `${instanceType} (zones that do: ${zones.join(', ') || 'none'}). Stack "${stackName}" is not deployed: ` +
            `run \`npx cdk context --reset ${key(Remembered.availabilityZone)}\` and preflight again`,
        );
      }
      availabilityZone = rememberedZone;
      source = 'remembered';
    } else {
      const first = zones[0];
      if (first === undefined) {
        throw new OpsError(
          `no availability zone of this region offers ${instanceType}: pick another --instance-type or region`,
        );
      }
      availabilityZone = first;
      source = 'chosen';
      entries[key(Remembered.availabilityZone)] = availabilityZone;
    }
    // Without dataVolumeKmsKeyArn the volume takes the account's default EBS key; a customer-managed
    // one must be named so that the instance role may use it (issue 14, item 4).
    const defaultKey = (await clients.ec2.send(new GetEbsDefaultKmsKeyIdCommand({}))).KmsKeyId;
    const chosenKey = readRemembered(contextFile, key(Remembered.dataVolumeKmsKeyArn));
    if (defaultKey && defaultKey !== 'alias/aws/ebs' && (chosenKey === undefined || chosenKey === REMEMBERED_NONE)) {
      notes.push(
        `the account's default EBS encryption key is ${defaultKey}. If it is a customer-managed key, deploy with ` +
          '-c dataVolumeKmsKeyArn=<its key ARN> (aws kms describe-key --key-id <it> --query KeyMetadata.Arn), or the ' +
          'instance may not attach its data volume',
      );
    }
  }
  const remembered = rememberInContextFile(contextFile, entries);
  return { availabilityZone, source, image, storage: StorageMode.Sqlite, remembered, notes };
}

const IMAGE_SOURCE: Record<PinnedImage['source'], string> = {
  'deployed instance': 'what the deployed instance runs',
  remembered: 'remembered',
  latest: 'the latest AL2023',
};

export function formatPreflight(stackName: string, report: PreflightReport, contextFile: string): string {
  const { image } = report;
  const lines = [
    report.storage === StorageMode.Postgres
      ? `stack ${stackName}: storage=postgres cluster (zones: -c availabilityZones on its first deploy, then remembered)`
      : `stack ${stackName}: availability zone ${report.availabilityZone} (${report.source})`,
    `image ${image.amiId} (${image.architecture}, ${IMAGE_SOURCE[image.source]})`,
    report.remembered.length > 0
      ? `wrote ${report.remembered.join(', ')} to ${contextFile}: commit it, so every deploy keeps these values`
      : `${contextFile} already agrees`,
    ...report.notes.map((n) => `note: ${n}`),
  ];
  return lines.join('\n');
}
