// One `npm test` runs every suite: the CDK kit and ops CLI (test/) and the broker (broker/test).
module.exports = {
  // testTimeout is a global option: a project's own value is ignored when jest runs from here.
  testTimeout: 60000,
  // Four workers on CI's 2 cores (jest's default is cores - 1 = one): most broker files wait on
  // child brokers, clients and PostgreSQL (15-35 % of a core each) rather than compute, so three
  // workers left the cores idle 30 % of the run. Quiet machine, 287 files: 3 workers 437-466 s
  // (~650 CPU-s), 4 workers 424 s and 385 s (592 CPU-s, 2026-12-06), all green both times; after
  // that day's cuts (294 files) 360 s and 350 s at ~590 CPU-s.
  maxWorkers: 4,
  // Ends the run with one line naming the external tools whose tests were skipped (also global-only).
  reporters: ['default', '<rootDir>/broker/test/support/skipped-tools-reporter.js'],
  projects: ['<rootDir>/test/jest.config.js', '<rootDir>/broker/jest.config.js'],
};
