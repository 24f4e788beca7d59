import { architectureOf, imageToRemember, isImageArchitecture, type ImageArchitecture } from '../image-config';
import { Remembered, readRemembered, rememberedKey } from '../remembered-context';
import type { OpsClients } from './clients';
import { OpsError } from './errors';
import { type RunningImage, latestImageId } from './image';

/** The image preflight pins, and where it came from. */
export interface PinnedImage {
  readonly amiId: string;
  readonly architecture: ImageArchitecture;
  readonly source: 'deployed instance' | 'remembered' | 'latest';
}

export interface ImageResolution {
  readonly image: PinnedImage;
  /** cdk.context.json entries to write (none when the remembered image stays). */
  readonly entries: Record<string, string>;
  readonly notes: string[];
}

/**
 * The image a deploy of `stackName` boots. For a deployed stack: the one its instance(s) run now,
 * never "latest" (or the first deploy after upgrading the kit would replace the broker); a
 * remembered one stays, since it may be a move `ops image --update` prepared. For a new stack: the
 * remembered one, else the latest AL2023 for the instance type's architecture.
 */
export async function resolveImage(
  clients: OpsClients,
  opts: { stackName: string; contextFile: string; instanceType: string; running: readonly RunningImage[] | undefined },
): Promise<ImageResolution> {
  const { stackName, contextFile, running } = opts;
  const idKey = rememberedKey(stackName, Remembered.amiId);
  const rememberedId = readRemembered(contextFile, idKey);
  const rememberedArch = readRemembered(contextFile, rememberedKey(stackName, Remembered.amiArchitecture));
  const notes: string[] = [];

  if (running !== undefined) {
    const deployed = mostCommonImage(running);
    if (rememberedId !== undefined) {
      const architecture = isImageArchitecture(rememberedArch ?? '')
        ? (rememberedArch as ImageArchitecture)
        : deployed.architecture;
      const behind = running.filter((r) => r.imageId !== rememberedId);
      if (behind.length > 0) {
        notes.push(
          `${contextFile} pins ${rememberedId}, but ${behind.map((r) => `${r.instanceId} runs ${r.imageId ?? '?'}`).join(', ')}: ` +
            'the next deploy REPLACES ' +
            (behind.length === 1 ? 'that instance' : 'those instances') +
            ` (npm run ops -- image shows both; to keep the running one, npx cdk context --reset ${idKey} and run preflight again)`,
        );
      }
      return { image: { amiId: rememberedId, architecture, source: 'remembered' }, entries: {}, notes };
    }
    const others = running.filter((r) => r.imageId !== deployed.amiId);
    if (others.length > 0) {
      notes.push(
        `the instances run different images (${running.map((r) => `${r.instanceId}: ${r.imageId ?? '?'}`).join(', ')}); ` +
          `pinned ${deployed.amiId}, which most run: the next deploy replaces the others`,
      );
    }
    const image = { amiId: deployed.amiId, architecture: deployed.architecture, source: 'deployed instance' as const };
    return {
      image,
      entries: imageToRemember(stackName, { amiId: image.amiId, amiArchitecture: image.architecture }),
      notes,
    };
  }

  const architecture = architectureOf(opts.instanceType);
  if (rememberedId !== undefined) {
    if (rememberedArch !== undefined && rememberedArch !== architecture) {
      throw new OpsError(
        `${contextFile} pins ${rememberedId} (${rememberedArch}) for stack "${stackName}", but ${opts.instanceType} is ` +
          `${architecture}: run \`npm run ops -- image --update --arch ${architecture}\` (with --stack), or pass the ` +
          'instance type of the image with --instance-type',
      );
    }
    return { image: { amiId: rememberedId, architecture, source: 'remembered' }, entries: {}, notes };
  }
  const amiId = await latestImageId(clients, architecture);
  return {
    image: { amiId, architecture, source: 'latest' },
    entries: imageToRemember(stackName, { amiId, amiArchitecture: architecture }),
    notes,
  };
}

/** The image most instances run (ties: the first broker's), with its architecture. */
function mostCommonImage(running: readonly RunningImage[]): { amiId: string; architecture: ImageArchitecture } {
  const counts = new Map<string, number>();
  for (const r of running) if (r.imageId) counts.set(r.imageId, (counts.get(r.imageId) ?? 0) + 1);
  let best: RunningImage | undefined;
  for (const r of running) {
    if (r.imageId && (best === undefined || counts.get(r.imageId)! > counts.get(best.imageId!)!)) best = r;
  }
  if (best?.imageId === undefined) {
    throw new OpsError(
      `no instance of the stack was found (${running.map((r) => r.instanceId).join(', ')}): were they terminated ` +
        'outside CloudFormation? Pin an image with npm run ops -- image --update',
    );
  }
  const architecture = best.architecture;
  if (architecture === undefined || !isImageArchitecture(architecture)) {
    throw new OpsError(
      `instance ${best.instanceId} reports architecture "${architecture ?? '?'}", not x86_64 or arm64`,
    );
  }
  return { amiId: best.imageId, architecture };
}
