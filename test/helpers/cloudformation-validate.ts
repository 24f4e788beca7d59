// What a kit test file gets for aws-cdk-lib's require('@aws/cloudformation-validate') (jest's
// moduleNameMapper in test/jest.config.js): the package loaded once per jest worker by the test
// environment (test/helpers/kit-environment.ts), whose engine is the run's validation server.
// (Not imported from there: that would load jest-environment-node into every test file.)
const SHARED_VALIDATE = '__minnowSharedCloudFormationValidate';

const shared = (globalThis as Record<string, unknown>)[SHARED_VALIDATE];
if (!shared) {
  throw new Error(
    `${SHARED_VALIDATE} is not set: this file stands in for @aws/cloudformation-validate only under ` +
      "the kit's test environment (test/jest.config.js: testEnvironment test/helpers/kit-environment.ts)",
  );
}
export = shared;
