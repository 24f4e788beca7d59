import * as fs from 'node:fs';
import * as path from 'node:path';
import { DescribeImagesCommand, DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { ImageArchitecture, imageToRemember, isImageArchitecture, latestImageParameter } from '../image-config';
import {
  DEFAULT_STACK_NAME,
  Remembered,
  readRemembered,
  rememberInContextFile,
  rememberedKey,
} from '../remembered-context';
import type { OpsClients, OpsRuntime } from './clients';
import { OpsError } from './errors';
import { readStackKind, readStackOutputs } from './stack-outputs';

/** Older than this, `ops status` says to move: AL2023 ships its security updates as new images. */
export const IMAGE_MAX_AGE_DAYS = 30;
const DAY_MS = 24 * 60 * 60_000;

/** One AMI as DescribeImages tells it; name and age are unknown when the image is not visible. */
export interface ImageInfo {
  readonly imageId: string;
  readonly name: string | undefined;
  /** ISO 8601, as EC2 reports it. */
  readonly creationDate: string | undefined;
  readonly ageDays: number | undefined;
  readonly architecture: string | undefined;
}

/** What one instance of the stack boots (a cluster: node id 1..N, in the InstanceIds order). */
export interface RunningImage {
  readonly nodeId: number | undefined;
  readonly instanceId: string;
  readonly imageId: string | undefined;
  readonly architecture: string | undefined;
}

/** Name, creation date and age of each image; ids EC2 does not know (deregistered) come back bare. */
export async function describeImages(
  clients: OpsClients,
  runtime: Pick<OpsRuntime, 'now'>,
  imageIds: readonly string[],
): Promise<Map<string, ImageInfo>> {
  const ids = [...new Set(imageIds)];
  const found = new Map<string, ImageInfo>();
  if (ids.length === 0) return found;
  // Asking by id returns deprecated images too (DescribeImages' IncludeDeprecated only filters lists).
  // One unknown id (deregistered, or of another region) fails the whole call with InvalidAMIID.*:
  // then each id alone, so the others are still described.
  let images;
  try {
    images = (await clients.ec2.send(new DescribeImagesCommand({ ImageIds: ids })))?.Images ?? [];
  } catch (err) {
    if (!/^InvalidAMIID/.test((err as { name?: string }).name ?? '') || ids.length === 1) throw err;
    images = [];
    for (const id of ids) {
      try {
        images.push(...((await clients.ec2.send(new DescribeImagesCommand({ ImageIds: [id] })))?.Images ?? []));
      } catch (one) {
        if (!/^InvalidAMIID/.test((one as { name?: string }).name ?? '')) throw one;
      }
    }
  }
  for (const image of images) {
    if (!image.ImageId) continue;
    const created = image.CreationDate ? Date.parse(image.CreationDate) : NaN;
    found.set(image.ImageId, {
      imageId: image.ImageId,
      name: image.Name,
      creationDate: image.CreationDate,
      ageDays: Number.isNaN(created) ? undefined : Math.floor((runtime.now().getTime() - created) / DAY_MS),
      architecture: image.Architecture,
    });
  }
  for (const id of ids) {
    if (!found.has(id)) {
      found.set(id, {
        imageId: id,
        name: undefined,
        creationDate: undefined,
        ageDays: undefined,
        architecture: undefined,
      });
    }
  }
  return found;
}

/** The latest AL2023 image id for an architecture, from AWS's public SSM parameter. */
export async function latestImageId(clients: OpsClients, architecture: ImageArchitecture): Promise<string> {
  const name = latestImageParameter(architecture);
  const response = await clients.ssm.send(new GetParameterCommand({ Name: name }));
  const value = response?.Parameter?.Value;
  if (!value) throw new OpsError(`SSM parameter ${name} has no value: is the region right (--region)?`);
  return value;
}

/**
 * The image each instance of a deployed stack boots, or undefined when the stack does not exist (a
 * first deploy). Only plain DescribeStacks and DescribeInstances.
 */
export async function runningImages(clients: OpsClients, stackName: string): Promise<RunningImage[] | undefined> {
  let kind;
  try {
    kind = await readStackKind(clients, stackName);
  } catch (err) {
    const e = err as { name?: string; message?: string };
    if (e.name === 'ValidationError' && /does not exist/i.test(e.message ?? '')) return undefined;
    throw err;
  }
  const ids =
    kind.kind === 'cluster' ? [...kind.instanceIds] : [(await readStackOutputs(clients, stackName)).instanceId];
  const response = await clients.ec2.send(new DescribeInstancesCommand({ InstanceIds: ids }));
  const instances = (response?.Reservations ?? []).flatMap((r) => r.Instances ?? []);
  return ids.map((instanceId, index) => {
    const instance = instances.find((i) => i.InstanceId === instanceId);
    return {
      nodeId: kind.kind === 'cluster' ? index + 1 : undefined,
      instanceId,
      imageId: instance?.ImageId,
      architecture: instance?.Architecture,
    };
  });
}

/** "image ami-... is N days old: ..." when older than IMAGE_MAX_AGE_DAYS, else undefined. */
export function imageAgeWarning(image: ImageInfo | undefined, stackName: string): string | undefined {
  if (image?.ageDays === undefined || image.ageDays <= IMAGE_MAX_AGE_DAYS) return undefined;
  return `image ${image.imageId} is ${image.ageDays} days old: npm run ops -- image --update${stackFlag(stackName)}, then deploy`;
}

const stackFlag = (stackName: string) => (stackName === DEFAULT_STACK_NAME ? '' : ` --stack ${stackName}`);

export interface ImageReport {
  readonly stackName: string;
  /** What cdk.context.json pins, with its architecture; undefined before preflight. */
  readonly pinned: (ImageInfo & { readonly pinnedArchitecture: string | undefined }) | undefined;
  /** undefined: the stack is not deployed. */
  readonly running: ReadonlyArray<RunningImage & { readonly image: ImageInfo | undefined }> | undefined;
  readonly latest: ImageInfo;
  readonly architecture: ImageArchitecture;
  readonly warnings: readonly string[];
}

export interface ImageOptions {
  readonly stackName: string;
  readonly contextFile: string;
  /** The architecture of the latest image to show or pin. @default the pinned one's, else the running one's, else x86_64 */
  readonly architecture?: string;
}

/** `npm run ops -- image`: the pinned image, what the instance(s) run, and the latest AL2023. */
export async function getImageReport(
  clients: OpsClients,
  runtime: OpsRuntime,
  opts: ImageOptions,
): Promise<ImageReport> {
  const { stackName, contextFile } = opts;
  const pinnedId = readRemembered(contextFile, rememberedKey(stackName, Remembered.amiId));
  const pinnedArchitecture = readRemembered(contextFile, rememberedKey(stackName, Remembered.amiArchitecture));
  const running = await runningImages(clients, stackName);
  const architecture = chooseArchitecture(opts.architecture, pinnedArchitecture, running?.[0]?.architecture);
  const latestId = await latestImageId(clients, architecture);
  const ids = [latestId, ...(pinnedId ? [pinnedId] : []), ...(running ?? []).flatMap((r) => r.imageId ?? [])];
  const images = await describeImages(clients, runtime, ids);
  const pinned = pinnedId ? { ...images.get(pinnedId)!, pinnedArchitecture } : undefined;
  const warnings: string[] = [];
  for (const id of new Set(ids.slice(1))) {
    const warning = imageAgeWarning(images.get(id), stackName);
    if (warning !== undefined) warnings.push(warning);
  }
  return {
    stackName,
    pinned,
    running: running?.map((r) => ({ ...r, image: r.imageId ? images.get(r.imageId) : undefined })),
    latest: images.get(latestId)!,
    architecture,
    warnings,
  };
}

function chooseArchitecture(
  given: string | undefined,
  pinned: string | undefined,
  running: string | undefined,
): ImageArchitecture {
  if (given !== undefined && !isImageArchitecture(given)) {
    throw new OpsError(`--arch ${given}: pass x86_64 (t3, m7i, ...) or arm64 (Graviton: t4g, m7g, ...)`);
  }
  for (const candidate of [given, pinned, running]) {
    if (candidate !== undefined && isImageArchitecture(candidate)) return candidate;
  }
  return ImageArchitecture.X86_64;
}

export interface ImageUpdate {
  readonly report: ImageReport;
  /** The cdk.context.json keys written; none when the latest was already pinned. */
  readonly remembered: string[];
  readonly previous: string | undefined;
}

/**
 * `ops image --update [--arch]`: pins the latest AL2023 in cdk.context.json; the next deploy moves
 * to it. Refused while cdk.json sets amiId: that value reaches the app as -c amiId on every run,
 * and bin/minnow.ts would take it for a deliberate move back.
 */
export async function updatePinnedImage(
  clients: OpsClients,
  runtime: OpsRuntime,
  opts: ImageOptions,
): Promise<ImageUpdate> {
  const cdkJson = path.join(path.dirname(opts.contextFile), 'cdk.json');
  if (fs.existsSync(cdkJson)) {
    const context = (JSON.parse(fs.readFileSync(cdkJson, 'utf8')) as { context?: Record<string, unknown> }).context;
    if (context?.amiId !== undefined) {
      throw new OpsError(
        `${cdkJson} sets "amiId": "${String(context.amiId)}", which every deploy passes as -c amiId and would move ` +
          `the broker back to. Remove it from cdk.json (the pin lives in ${opts.contextFile} now), then run again.`,
      );
    }
  }
  const report = await getImageReport(clients, runtime, opts);
  const previous = report.pinned?.imageId;
  const remembered = rememberInContextFile(
    opts.contextFile,
    imageToRemember(opts.stackName, { amiId: report.latest.imageId, amiArchitecture: report.architecture }),
  );
  return { report, remembered, previous };
}

function describe(image: ImageInfo | undefined): string {
  if (image === undefined) return '-';
  if (image.name === undefined) return `${image.imageId}  (not found: deregistered, or of another region)`;
  const age = image.ageDays === undefined ? '' : `, ${image.ageDays} days old`;
  return `${image.imageId}  ${image.name}  (${image.architecture ?? '?'}, created ${image.creationDate?.slice(0, 10) ?? '?'}${age})`;
}

export function formatImageReport(r: ImageReport): string {
  const lines = [`stack              ${r.stackName}`];
  lines.push(
    `pinned             ${r.pinned ? describe(r.pinned) : 'none: run npm run ops -- preflight (or image --update)'}`,
  );
  if (r.running === undefined) {
    lines.push('running            - (stack not deployed)');
  } else {
    for (const i of r.running) {
      const who = i.nodeId === undefined ? 'running' : `broker ${i.nodeId}`;
      lines.push(`${who.padEnd(19)}${describe(i.image)}  on ${i.instanceId}`);
    }
  }
  const current = r.latest.imageId === r.pinned?.imageId ? '  = pinned' : '';
  lines.push(`latest AL2023      ${describe(r.latest)}${current}`);
  lines.push(...r.warnings.map((w) => `warning: ${w}`));
  return lines.join('\n');
}

export function formatImageUpdate(u: ImageUpdate, contextFile: string): string {
  const { report } = u;
  const stack = report.stackName;
  const runs = report.running?.every((r) => r.imageId === report.latest.imageId) ?? false;
  if (u.remembered.length === 0 && (runs || report.running === undefined)) {
    return `${formatImageReport(report)}\n\nThe latest AL2023 (${report.latest.imageId}) is already pinned: nothing to do.`;
  }
  const cluster = report.running?.some((r) => r.nodeId !== undefined) ?? false;
  const stackContext = stack === DEFAULT_STACK_NAME ? '' : ` -c stackName=${stack}`;
  const arch = report.architecture === 'arm64' ? ' -c instanceType=<a Graviton type, e.g. t4g.micro>' : '';
  return [
    formatImageReport(report),
    '',
    `Pinned ${report.latest.imageId} for stack ${stack} in ${contextFile}` +
      `${u.previous && u.previous !== report.latest.imageId ? ` (was ${u.previous})` : ''}: commit it.`,
    'The next deploy REPLACES the broker instance' +
      (cluster ? 's, one broker at a time (the others keep serving):' : ':') +
      ' the new instance installs first, then takes over the data volume; about 1-2 minutes without that broker,' +
      ' and the deploy waits until it answers. The data volume and the Elastic IP stay.',
    'Deploy it (with the -c values you always pass):',
    '',
    `  npx cdk deploy -c allowedCidr=<your CIDR>${stackContext}${arch}`,
  ].join('\n');
}

/** What `ops status` says about images: each one's age, the pin, and the warnings. */
export interface ImageStatus {
  /** The images the instance(s) run, one entry per distinct id. */
  readonly running: readonly ImageInfo[];
  /** What cdk.context.json pins, when a context file is at hand; undefined: none or unknown. */
  readonly pinned: string | undefined;
  readonly warnings: readonly string[];
}

export async function imageStatus(
  clients: OpsClients,
  runtime: OpsRuntime,
  stackName: string,
  runningIds: ReadonlyArray<string | undefined>,
  contextFile: string | undefined,
): Promise<ImageStatus> {
  const ids = [...new Set(runningIds.filter((id): id is string => id !== undefined))];
  const pinned = contextFile && readRemembered(contextFile, rememberedKey(stackName, Remembered.amiId));
  const all = pinned ? [...ids, pinned] : ids;
  const warnings: string[] = [];
  let images: Map<string, ImageInfo>;
  try {
    images = await describeImages(clients, runtime, all);
  } catch (err) {
    // The rest of the status still matters: say why the image's age is missing, and go on.
    const e = err as { name?: string; message?: string };
    warnings.push(
      `the image's age is unknown: DescribeImages failed (${e.name ?? 'Error'}: ${e.message ?? String(err)})`,
    );
    images = new Map(
      all.map((id) => [
        id,
        { imageId: id, name: undefined, creationDate: undefined, ageDays: undefined, architecture: undefined },
      ]),
    );
  }
  for (const image of images.values()) {
    const warning = imageAgeWarning(image, stackName);
    if (warning !== undefined) warnings.push(warning);
  }
  if (pinned && ids.some((id) => id !== pinned)) {
    warnings.push(
      `${contextFile} pins ${pinned}, which is not deployed yet: the next deploy replaces the broker to boot it`,
    );
  }
  return { running: ids.map((id) => images.get(id)!), pinned: pinned || undefined, warnings };
}

/** One line per running image for `ops status`. */
export function formatImageLines(status: ImageStatus): string[] {
  const lines = status.running.map((image) => `image              ${describe(image)}`);
  if (status.pinned !== undefined && !status.running.some((i) => i.imageId === status.pinned)) {
    lines.push(`pinned image       ${status.pinned}  (cdk.context.json)`);
  }
  return lines;
}
