/**
 * How the workflow bundle is built, for the prebuilt bundle (`scripts/bundle-workflows.ts`) and
 * for a worker that bundles at start alike.
 *
 * The worker runs every workflow in one reused V8 context, where a module the bundle did not load
 * before the first workflow is evaluated again for each workflow: our workflow modules and the
 * SDK's `@temporalio/workflow` index. Preloaded, they are evaluated once and shared. That is safe
 * because no module under workflows/ keeps state at module scope: their top level only declares
 * functions, constants, signal/query/update definitions and activity proxies, which hold options
 * and look up the running workflow when called (test/workflows/workflow.contracts.test.ts checks
 * this, and fails on anything else at the top level). The SDK deep-freezes what a shared module
 * exports, but not what it keeps to itself: the test is the guard.
 */
export const workflowsPath = require.resolve('../workflows');

export const workflowBundlerOptions = {
  preloadModules: ['@temporalio/workflow', workflowsPath],
};
