// One `npm test` runs every suite: the CDK kit and ops CLI (test/) and the broker (broker/test).
module.exports = {
  // testTimeout is a global option: a project's own value is ignored when jest runs from here.
  testTimeout: 60000,
  // Two workers on CI's 2 cores (jest's default is cores - 1 = one): most files wait on child
  // brokers, clients and PostgreSQL rather than compute. A full run with 2 workers on a machine
  // loaded by other work (load ~7) took 1001 s and failed only on a test fixed since (a 3 s
  // transaction timeout shorter than a restart under that load); one worker would take ~15 min.
  maxWorkers: 2,
  // Ends the run with one line naming the external tools whose tests were skipped (also global-only).
  reporters: ['default', '<rootDir>/broker/test/support/skipped-tools-reporter.js'],
  projects: ['<rootDir>/test/jest.config.js', '<rootDir>/broker/jest.config.js'],
};
