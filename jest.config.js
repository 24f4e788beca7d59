// One `npm test` runs every suite: the CDK kit and ops CLI (test/) and the broker (broker/test).
module.exports = {
  projects: ['<rootDir>/test/jest.config.js', '<rootDir>/broker/jest.config.js'],
};
