/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.(ts|js|mjs)$': ['@swc/jest'] },
  // openid-client (the real OAuth client the tests use) and its dependencies ship only as ES modules.
  transformIgnorePatterns: ['/node_modules/(?!(openid-client|oauth4webapi|jose)/)'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // test/cluster/ needs the production profile's Temporal cluster: `npm run test:cluster` (jest.cluster.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/cluster/'],
  globalSetup: '<rootDir>/test/setup/globalSetup.ts',
  globalTeardown: '<rootDir>/test/setup/globalTeardown.ts',
  testTimeout: 120000,
  // Three on two cores: the suites wait on workflows, timers and the browser (test/console and
  // test/campaigns kept the machine 69 % busy with two workers, 86 % with three; docs/CONTRIBUTING.md).
  maxWorkers: 3,
  // Long suites first, so the workers finish together.
  testSequencer: '<rootDir>/test/setup/sequencer.js',
};
