const base = require('./jest.config');

/**
 * `npm run test:cluster`, the production profile (not part of `npm test`): the end-to-end suites
 * and the fault tests on a Temporal cluster built from Go (temporal/cluster.ts) with two shared
 * workers, instead of the dev server with one.
 * @type {import('jest').Config}
 */
module.exports = {
  ...base,
  testMatch: [
    '<rootDir>/test/walkthroughs.test.ts',
    // The campaign suites that send through the shared workers (the others start workers of their own).
    '<rootDir>/test/campaigns/campaigns.test.ts',
    '<rootDir>/test/campaigns/provider-pools.test.ts',
    '<rootDir>/test/campaigns/whatsapp.test.ts',
    // The MCP sign-in in Chromium, on one host and on four distinct origins ({base_url}, {mcp_url},
    // {auth_url}, {site_url}), and what each host advertises.
    '<rootDir>/test/browser/mcp.browser.test.ts',
    '<rootDir>/test/auth/hosts.test.ts',
    // A person's walk-through in the console, through the shared workers.
    '<rootDir>/test/console/automation-walkthrough.browser.test.ts',
    '<rootDir>/test/cluster/**/*.test.ts',
  ],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/test/setup/clusterGlobalSetup.ts',
  // One file at a time: a fault test restarts Postgres or kills a shared worker under everyone.
  maxWorkers: 1,
  // The fault tests last, the one that kills a shared worker for good at the very end.
  testSequencer: '<rootDir>/test/setup/clusterSequencer.js',
};
