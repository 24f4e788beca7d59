import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, CfnResource, Stack } from 'aws-cdk-lib';
import { REPO_ROOT } from './helpers/synth';
import { kitTempDir } from './helpers/temp-dirs';
import { VALIDATION_SOCKET_ENV } from './helpers/validation-server-start';

// The kit's synths are validated as `cdk synth` validates them (cdk.json's
// @aws-cdk/core:validateAgainstDefaultRules), by the run's one engine (test/helpers/
// validation-server.js, reached through kit-environment.ts): an invalid template must still fail.

const CDK_JSON_CONTEXT = (
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

test('a template the validator rejects fails the synth, each finding named', () => {
  const app = new App({ context: CDK_JSON_CONTEXT, outdir: kitTempDir('minnow-cdk-'), analyticsReporting: false });
  new CfnResource(new Stack(app, 'Invalid'), 'Queue', {
    type: 'AWS::SQS::Queue',
    properties: { VisibilityTimeout: 'soon', NoSuchProperty: 1 },
  });
  let message = '';
  try {
    app.synth();
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message).toContain(
    "ERROR NoSuchProperty: Additional properties are not allowed ('NoSuchProperty' was unexpected)",
  );
  expect(message).toContain('CloudFormation-Validate::F3002');
  expect(message).toContain("ERROR VisibilityTimeout: 'soon' is not of type 'integer'");
  expect(message).toContain('CloudFormation-Validate::F3012');
});

test("under the kit project's globalSetup the engine is the run's server, not one per worker", () => {
  expect(process.env[VALIDATION_SOCKET_ENV]).toMatch(/validation\.sock$/);
  // What aws-cdk-lib's require of the package gets (test/jest.config.js's moduleNameMapper).
  const validate = jest.requireActual<{ CompositeEngine: { name: string } }>('./helpers/cloudformation-validate');
  expect(validate.CompositeEngine.name).toBe('RemoteCompositeEngine');
});
