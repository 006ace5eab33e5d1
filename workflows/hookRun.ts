import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { HookActivities, HookRunInput, HookRunResult } from './contracts/hookRun';

const { runHook } = proxyActivities<HookActivities>({
  // A warp that starts work answers at once; one that runs inline is a few writes.
  startToCloseTimeout: '2 minutes',
  // Our side away (the database, Temporal): retried, and a retry finds the warp's execution by its
  // derived id rather than running the warp again (services/hooks/runHook.ts).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

const { failHookRun } = proxyActivities<HookActivities>({
  startToCloseTimeout: '30 seconds',
  // Only settles a row: retried until the database answers.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** One hook run: its warp, once; a run whose attempts ran out is settled as failed, never left open. */
export async function hookRunWorkflow(input: HookRunInput): Promise<HookRunResult> {
  try {
    return await runHook(input.runId);
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    return failHookRun(input.runId, err.cause?.message ?? err.message);
  }
}
