#!/usr/bin/env node
// The CDK app: `npx cdk deploy -c allowedCidr=203.0.113.7/32` (see docs/deploy.md).
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readConfig, valuesToRemember } from '../lib/config';
import { MinnowStack } from '../lib/minnow-stack';
import { MinnowPostgresStack } from '../lib/postgres-stack';
import { CONTEXT_FILE, rememberInContextFile } from '../lib/remembered-context';

const app = new App();
const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? 'Minnow';
const config = readConfig(app.node);
if (config.postgres) {
  // -c storage=postgres: several brokers on one RDS PostgreSQL; no data volume to remember.
  new MinnowPostgresStack(app, stackName, {
    config,
    description: `minnow: ${config.postgres.brokers} Kafka-compatible brokers on one RDS PostgreSQL`,
  });
} else {
  new MinnowStack(app, stackName, {
    config,
    description: 'minnow: a Kafka-compatible broker in one SQLite file, on one EC2 instance',
  });
  // The data volume's zone, key, snapshot and size, so that a later deploy that leaves out a -c value
  // cannot replace or shrink the volume (readConfig refuses a contradicting one). The CLI runs the app
  // from the directory of cdk.json.
  const remembered = rememberInContextFile(CONTEXT_FILE, valuesToRemember(stackName, config));
  if (remembered.length > 0) {
    console.error(`minnow: remembered ${remembered.join(', ')} in ${CONTEXT_FILE} (commit it with your cdk.json)`);
  }
}
// cdk-nag v3: any unacknowledged AwsSolutions finding fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
