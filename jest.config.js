// One `npm test` runs every suite: the CDK kit and ops CLI (test/) and the broker (broker/test).
module.exports = {
  // testTimeout is a global option: a project's own value is ignored when jest runs from here.
  testTimeout: 60000,
  projects: ['<rootDir>/test/jest.config.js', '<rootDir>/broker/jest.config.js'],
};
