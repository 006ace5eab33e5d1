import { proxyActivities } from '@temporalio/workflow';
import type { HookActivities, HookRunInput, HookRunResult } from './contracts/hookRun';

const { runHook } = proxyActivities<HookActivities>({
  // A warp that starts work answers at once; one that runs inline is a few writes.
  startToCloseTimeout: '2 minutes',
  // Our side away (the database, Temporal): retried; the run itself is claimed once (services/hooks/hookRuns.ts).
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

/** One hook run: its warp, once. */
export async function hookRunWorkflow(input: HookRunInput): Promise<HookRunResult> {
  return runHook(input.runId);
}
