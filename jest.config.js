// One `npm test` runs every suite: the CDK kit and ops CLI (test/) and the broker (broker/test).
module.exports = {
  // testTimeout is a global option: a project's own value is ignored when jest runs from here.
  testTimeout: 60000,
  // Ends the run with one line naming the external tools whose tests were skipped (also global-only).
  reporters: ['default', '<rootDir>/broker/test/support/skipped-tools-reporter.js'],
  projects: ['<rootDir>/test/jest.config.js', '<rootDir>/broker/jest.config.js'],
};
