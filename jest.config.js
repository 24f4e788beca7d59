// One `npm test` runs every suite: the CDK kit and ops CLI (test/) and the broker (broker/test).
module.exports = {
  // testTimeout is a global option: a project's own value is ignored when jest runs from here.
  testTimeout: 60000,
  // Three workers on CI's 2 cores (jest's default is cores - 1 = one): most broker files wait on
  // child brokers, clients and PostgreSQL (15-35 % of a core each) rather than compute. Quiet
  // machine, 280 files: 2 workers took 800 s (260 files, the previous session), 3 workers 655 s with
  // ~990 s of CPU in all (2026-12-06), green; the CPU, not the waiting, now bounds the run.
  maxWorkers: 3,
  // Ends the run with one line naming the external tools whose tests were skipped (also global-only).
  reporters: ['default', '<rootDir>/broker/test/support/skipped-tools-reporter.js'],
  projects: ['<rootDir>/test/jest.config.js', '<rootDir>/broker/jest.config.js'],
};
