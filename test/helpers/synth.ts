import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readConfig } from '../../lib/config';
import { MinnowStack } from '../../lib/minnow-stack';
import { runCached } from './run-cache';
import { kitTempDir } from './temp-dirs';

export const REPO_ROOT = path.join(__dirname, '..', '..');
/** A fixed fake AMI id: what `npm run ops -- preflight` remembers as the image (x86_64, like t3.micro). */
export const TEST_AMI_ID = 'ami-0abcdef1234567890';
/** What `npm run ops -- preflight` writes to cdk.context.json for stack Minnow before a first deploy. */
export const REMEMBERED_IMAGE = {
  'minnow:Minnow:amiId': TEST_AMI_ID,
  'minnow:Minnow:amiArchitecture': 'x86_64',
} as const;
/** For an arm64 (Graviton) type: the image preflight would have pinned for it. */
export const REMEMBERED_ARM_IMAGE = {
  'minnow:Minnow:amiId': 'ami-0abcdef123456789a',
  'minnow:Minnow:amiArchitecture': 'arm64',
} as const;
/** availabilityZone and the image: what `npm run ops -- preflight` writes before a first deploy. */
export const BASE_CONTEXT = {
  allowedCidr: '203.0.113.0/24',
  availabilityZone: 'eu-west-2a',
  ...REMEMBERED_IMAGE,
} as const;

/** cdk.json's context (the feature flags), which `cdk synth` passes to the app and tests must too. */
const CDK_JSON_CONTEXT = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

export interface Synth {
  readonly app: App;
  readonly stack: MinnowStack;
  readonly template: Template;
  readonly outdir: string;
}

/** Builds the app the way bin/minnow.ts does, from context values, into a temp cloud assembly. */
export function buildApp(
  context: Record<string, string | number> = {},
  opts: { nag?: boolean } = {},
): {
  app: App;
  stack: MinnowStack;
  outdir: string;
} {
  const outdir = kitTempDir('minnow-cdk-');
  const app = new App({
    context: { ...CDK_JSON_CONTEXT, ...BASE_CONTEXT, ...context },
    outdir,
    analyticsReporting: false,
  });
  const stack = new MinnowStack(app, 'Minnow', { config: readConfig(app.node) });
  if (opts.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, outdir };
}

export function synth(context: Record<string, string | number> = {}): Synth {
  const { app, stack, outdir } = buildApp(context);
  return { app, stack, outdir, template: Template.fromStack(stack) };
}

/**
 * The template synth(context) makes, synthesized once per jest run and shared by every test file
 * (test/helpers/run-cache.ts), or the error it threw, thrown again with the same message. For
 * tests that only read the template; a test about the app or its constructs calls synth().
 */
export function synthTemplate(context: Record<string, string | number> = {}): Template {
  return Template.fromJSON(runCached(`Minnow ${stableJson(context)}`, () => synth(context).template.toJSON()));
}

/** JSON with the keys sorted: the same context, however written, is one cache key. */
export function stableJson(context: Record<string, string | number>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));
}

/** Logical ids of the resources of one CloudFormation type. */
export function logicalIds(template: Template, type: string): string[] {
  return Object.keys(template.findResources(type));
}

/** The only resource of a type: [logicalId, resource]. */
export function only(
  template: Template,
  type: string,
): [string, { Properties: Record<string, unknown> } & Record<string, unknown>] {
  const found = Object.entries(template.findResources(type));
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0] as [string, { Properties: Record<string, unknown> } & Record<string, unknown>];
}

/** The instance user data as text, with every intrinsic replaced by a readable placeholder. */
export function userDataText(template: Template, placeholders: Record<string, string> = {}): string {
  const [, instance] = only(template, 'AWS::EC2::Instance');
  const b64 = (instance.Properties.UserData as { 'Fn::Base64': unknown })['Fn::Base64'];
  return flatten(b64, placeholders);
}

export function flatten(value: unknown, placeholders: Record<string, string>): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if ('Fn::Join' in obj) {
      const [sep, parts] = obj['Fn::Join'] as [string, unknown[]];
      return parts.map((p) => flatten(p, placeholders)).join(sep);
    }
    if (typeof obj['Fn::Sub'] === 'string') return obj['Fn::Sub'];
    const key = JSON.stringify(obj);
    for (const [pattern, replacement] of Object.entries(placeholders)) {
      if (key.includes(pattern)) return replacement;
    }
    return `<${key}>`;
  }
  return String(value);
}
