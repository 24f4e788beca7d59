module.exports = {
  displayName: 'broker',
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  testTimeout: 30000,
  // The Python virtualenv integration tests keep (test/integration/python-venv.ts): not crawled.
  modulePathIgnorePatterns: ['<rootDir>/test/.venv/'],
};
