#!/usr/bin/env node
// The CDK app: `npx cdk deploy -c allowedCidr=203.0.113.7/32` (see docs/deploy.md).
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readConfig } from '../lib/config';
import { MinnowStack } from '../lib/minnow-stack';

const app = new App();
const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? 'Minnow';
new MinnowStack(app, stackName, {
  config: readConfig(app.node),
  description: 'minnow: a Kafka-compatible broker in one SQLite file, on one EC2 instance',
});
// cdk-nag v3: any unacknowledged AwsSolutions finding fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
