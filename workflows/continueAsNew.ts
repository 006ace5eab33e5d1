import { patched, workflowInfo, type WorkflowInfo } from '@temporalio/workflow';

/**
 * The one limit for every workflow that loops (an import, a campaign send, a template wait): far
 * below Temporal's 50 000 events, so a run's history stays quick to replay on any worker.
 */
export const CONTINUE_AS_NEW_AFTER_EVENTS = 2_000;

/**
 * True when the run should continue as new: the server suggests it, or the history reached the
 * limit (tests pass a small one). Runs started before this rule existed keep the rule they were
 * started with (`legacy`), so a run already past the new limit replays without a new command.
 */
export function shouldContinueAsNew(
  limit: number = CONTINUE_AS_NEW_AFTER_EVENTS,
  legacy: (info: WorkflowInfo) => boolean,
): boolean {
  const info = workflowInfo();
  if (!patched('one-continue-as-new-rule')) return legacy(info);
  return info.continueAsNewSuggested || info.historyLength >= limit;
}
