// The CDK kit and ops CLI tests (the broker has its own project in broker/jest.config.js).
const path = require('node:path');

module.exports = {
  displayName: 'kit',
  rootDir: path.join(__dirname, '..'),
  // Node's environment plus the run's one CloudFormation validator (started by the globalSetup below),
  // which aws-cdk-lib's require of @aws/cloudformation-validate gets (test/helpers/kit-environment.ts).
  testEnvironment: '<rootDir>/test/helpers/kit-environment.ts',
  moduleNameMapper: { '^@aws/cloudformation-validate$': '<rootDir>/test/helpers/cloudformation-validate.ts' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  // Synthesizing stages the broker asset; the install test runs a shell script and a broker.
  testTimeout: 60000,
  // Removes the cloud assemblies and sandboxes each test file made (test/helpers/temp-dirs.ts).
  setupFilesAfterEnv: ['<rootDir>/test/helpers/remove-temp-dirs.ts'],
  // A directory for what the run computes once for every file: templates, the zipped broker asset
  // (test/helpers/run-cache.ts), and the validator's process (validation-server.js); both end with the run.
  globalSetup: '<rootDir>/test/helpers/run-cache-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/run-cache-teardown.ts',
};
