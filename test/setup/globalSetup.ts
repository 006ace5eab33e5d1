import { randomBytes } from 'node:crypto';
import { ensureChromium } from './chromium';
import { startTestStack, startWorkerProcess, TestStack, WorkerProcess } from './stack';

export const SHARED_TASK_QUEUE = 'tap-test';

/**
 * Starts what the suite needs on a clean machine: the Temporal CLI dev server (built once with Go
 * when missing), a fresh Postgres database (DATABASE_URL's server, else an embedded one), the
 * workflow bundle and one shared worker process. Test files read them from the environment.
 */
export default async function globalSetup(): Promise<void> {
  ensureChromium((line) => process.stdout.write(`[test setup] ${line}\n`));
  const stack = await startTestStack();
  const env = sharedTestEnv(stack);
  Object.assign(process.env, env);
  const worker = await startWorkerProcess(env);
  (globalThis as Record<string, unknown>).__tapTestStack = { stack, workers: [worker] } satisfies GlobalState;
}

/** What every suite reads from the environment: where the stack's parts are, and the run's settings. */
export function sharedTestEnv(stack: TestStack): Record<string, string> {
  return {
    DATABASE_URL: stack.databaseUrl,
    TEMPORAL_ADDRESS: stack.temporal.address,
    TEMPORAL_TASK_QUEUE: SHARED_TASK_QUEUE,
    WORKFLOW_BUNDLE_PATH: stack.bundlePath,
    TEMPORAL_CLI_PATH: stack.cliPath,
    // One key for the API and the worker (provider secrets, signed links), fresh per run.
    SECRETS_KEY: randomBytes(32).toString('base64'),
    // Every suite registers its OAuth clients from 127.0.0.1 into the one test database, so the
    // per-address quota (30 per 10 minutes) would count the whole suite's and refuse the late ones.
    REGISTRATION_LIMIT: '1000/600',
  };
}

/** What the teardown stops: the stack and the shared worker processes on SHARED_TASK_QUEUE. */
export type GlobalState = { stack: TestStack; workers: WorkerProcess[] };
