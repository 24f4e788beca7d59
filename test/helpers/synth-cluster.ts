import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readConfig } from '../../lib/config';
import { MinnowPostgresStack } from '../../lib/postgres-stack';
import { runCached } from './run-cache';
import { REMEMBERED_IMAGE, REPO_ROOT, stableJson } from './synth';
import { kitTempDir } from './temp-dirs';

/** What `npx cdk deploy -c storage=postgres -c availabilityZones=... -c allowedCidr=...` passes. */
export const CLUSTER_CONTEXT = {
  allowedCidr: '203.0.113.0/24',
  storage: 'postgres',
  availabilityZones: 'eu-west-2a,eu-west-2b',
  // The helper builds stack MinnowCluster without -c stackName: its remembered keys are Minnow's.
  ...REMEMBERED_IMAGE,
} as const;

const CDK_JSON_CONTEXT = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

/** Builds the storage=postgres app the way bin/minnow.ts does, into a temp cloud assembly. */
export function buildCluster(
  context: Record<string, string | number> = {},
  opts: { nag?: boolean } = {},
): { app: App; stack: MinnowPostgresStack } {
  const app = new App({
    context: { ...CDK_JSON_CONTEXT, ...CLUSTER_CONTEXT, ...context },
    outdir: kitTempDir('minnow-cdk-'),
    analyticsReporting: false,
  });
  const stack = new MinnowPostgresStack(app, 'MinnowCluster', { config: readConfig(app.node) });
  if (opts.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

export function synthCluster(context: Record<string, string | number> = {}): {
  stack: MinnowPostgresStack;
  template: Template;
} {
  const { stack } = buildCluster(context);
  return { stack, template: Template.fromStack(stack) };
}

/**
 * The template synthCluster(context) makes, synthesized once per jest run (test/helpers/run-cache.ts),
 * or the error it threw, thrown again. For tests that only read the template.
 */
export function synthClusterTemplate(context: Record<string, string | number> = {}): Template {
  return Template.fromJSON(
    runCached(`MinnowCluster ${stableJson(context)}`, () => synthCluster(context).template.toJSON()),
  );
}
