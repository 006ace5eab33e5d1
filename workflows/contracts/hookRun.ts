import type { WorkflowStart } from './start';

/**
 * The contract of `hook-run-<runId>`: one hook run, i.e. one warp run for one (hook, event) or
 * (hook, inbound delivery) pair (docs/HOOKS.md). The id is derived from the hook and the event,
 * so a second start of the same run is refused by Temporal itself. The events dispatcher and the
 * inbound hook path start it; the worker's hook activities implement the run.
 */

export const hookRunWorkflowName = 'hookRunWorkflow';

export const hookRunWorkflowId = (runId: string) => `hook-run-${runId}`;

export interface HookRunInput {
  runId: string;
}

/**
 * succeeded: the warp ran or started (its execution has its own status); failed: it could not
 * (an unknown warp, inputs its schema refuses, a run interrupted by a crash and not repeated).
 */
export interface HookRunResult {
  status: 'succeeded' | 'failed';
  executionId: string | null;
}

export type HookRunWorkflow = (input: HookRunInput) => Promise<HookRunResult>;

export const hookRunStart = {
  name: hookRunWorkflowName,
  id: (input) => hookRunWorkflowId(input.runId),
  searchAttributes: (input) => ({ JobType: 'hook.run', BusinessId: input.runId }),
  // Never a second run of the same id, even after the first closed (a replayed delivery).
  idReusePolicy: 'REJECT_DUPLICATE',
} as const satisfies WorkflowStart<HookRunWorkflow>;

export interface HookActivities {
  runHook(runId: string): Promise<HookRunResult>;
  /** Settles a run whose `runHook` ran out of attempts as failed. */
  failHookRun(runId: string, message: string): Promise<HookRunResult>;
}
