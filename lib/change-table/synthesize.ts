// Synthesizes a stack in-process, as bin/minnow.ts builds it, for the change table.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { readConfig } from '../config';
import { MinnowStack } from '../minnow-stack';
import { MinnowPostgresStack } from '../postgres-stack';
import { stagedFiles } from '../constructs/broker-asset';
import type { StackKind } from './rows';
import type { TemplateJson } from './template-diff';

const REPO_ROOT = path.join(__dirname, '..', '..');
const BROKER_DIR = path.join(REPO_ROOT, 'broker');

/** cdk.json's context (the feature flags), which `cdk synth` passes to the app. */
function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

export type Synthesizer = (
  stack: StackKind,
  context: Readonly<Record<string, string>>,
  brokerDir: string,
) => TemplateJson;

/** A synthesizer writing its cloud assemblies under folders that `tempDir` makes (the caller removes them). */
export function inProcessSynthesizer(tempDir: () => string): Synthesizer {
  const flags = cdkJsonContext();
  return (stack, context, brokerDir) => {
    const app = new App({ context: { ...flags, ...context }, outdir: tempDir(), analyticsReporting: false });
    const config = readConfig(app.node);
    const built =
      stack === 'cluster'
        ? new MinnowPostgresStack(app, 'MinnowCluster', { config, brokerDir })
        : new MinnowStack(app, 'Minnow', { config, brokerDir });
    return app.synth().getStackArtifact(built.artifactId).template as TemplateJson;
  };
}

/** The broker directories the rows deploy (ChangeRow.release). */
export interface BrokerReleases {
  readonly base: string;
  readonly new: string;
  readonly unshipped: string;
}

/**
 * Copies of what the asset ships from broker/, under `tempDir()`s (the caller removes them): the
 * base; a new release (one more file in dist/: another content hash, another release id); and the
 * base plus files the asset leaves out (a test, a README). All three are copies, so the base does
 * not depend on whether broker/dist was built here.
 */
export function brokerReleases(tempDir: () => string): BrokerReleases {
  const copy = (extra: Record<string, string>): string => {
    const into = tempDir();
    for (const file of stagedFiles(BROKER_DIR)) {
      fs.mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
      fs.copyFileSync(path.join(BROKER_DIR, file), path.join(into, file));
    }
    for (const [file, text] of Object.entries(extra)) {
      fs.mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
      fs.writeFileSync(path.join(into, file), text);
    }
    return into;
  };
  return {
    base: copy({}),
    new: copy({ 'dist/change-table-release.js': '// another release\n' }),
    unshipped: copy({ 'README.md': 'another README\n', 'test/another.test.ts': '// another test\n' }),
  };
}
