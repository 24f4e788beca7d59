module.exports = {
  displayName: 'broker',
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  testTimeout: 30000,
  // The Python virtualenv integration tests keep (test/integration/python-venv.ts): not crawled.
  modulePathIgnorePatterns: ['<rootDir>/test/.venv/', '<rootDir>/.test-build/'],
  // The broker compiled once for the `minnow` processes the tests start (test/support/child-build.ts).
  globalSetup: '<rootDir>/test/support/child-build-setup.ts',
  globalTeardown: '<rootDir>/test/support/child-build-teardown.ts',
};
