#!/usr/bin/env node
// The CDK app: `npx cdk deploy -c allowedCidr=203.0.113.7/32` (see docs/deploy.md).
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DEFAULT_STACK_NAME, Remembered, readConfig, rememberedKey, valuesToRemember } from '../lib/config';
import { MinnowStack } from '../lib/minnow-stack';
import { MinnowPostgresStack } from '../lib/postgres-stack';
import { CONTEXT_FILE, readRemembered, rememberInContextFile } from '../lib/remembered-context';

const app = new App();
const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? DEFAULT_STACK_NAME;
const config = readConfig(app.node);
if (config.postgres) {
  // -c storage=postgres (or remembered): several brokers on one RDS PostgreSQL.
  new MinnowPostgresStack(app, stackName, {
    config,
    description: `minnow: ${config.postgres.brokers} Kafka-compatible brokers on one RDS PostgreSQL`,
  });
} else {
  new MinnowStack(app, stackName, {
    config,
    description: 'minnow: a Kafka-compatible broker in one SQLite file, on one EC2 instance',
  });
}
// What must not drift (the data volume's zone, key, snapshot and size; a cluster's storage, zones and
// broker count; the image of both), so that a later deploy that leaves out a -c value cannot replace
// anything (readConfig refuses a contradicting value). The CLI runs the app from the directory of cdk.json.
const pinnedImage = readRemembered(CONTEXT_FILE, rememberedKey(stackName, Remembered.amiId));
const remembered = rememberInContextFile(CONTEXT_FILE, valuesToRemember(stackName, config));
if (pinnedImage !== undefined && pinnedImage !== config.amiId) {
  console.error(
    `minnow: -c amiId=${config.amiId} differs from the image stack ${stackName} had pinned (${pinnedImage}): ` +
      'a deliberate move. It is now the pinned image in cdk.context.json, and a deploy REPLACES the broker ' +
      'instance(s) with ones booting it (the data volume stays; docs/deploy.md, "Images and patching"). ' +
      `If that was not meant, pass -c amiId=${pinnedImage} to pin the old one again.`,
  );
}
if (remembered.length > 0) {
  console.error(`minnow: remembered ${remembered.join(', ')} in ${CONTEXT_FILE} (commit it with your cdk.json)`);
}
// cdk-nag v3: any unacknowledged AwsSolutions finding fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
