import { proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import { openApprovalGate, refusalError } from './approvalGate';
import type { ExecutionActivities } from './contracts/execution';
import {
  progress,
  WarpActivities,
  WarpExecutionArgs,
  WarpExecutionProgress,
  WarpExecutionWorkflow,
} from './contracts/warpExecution';

const { runApprovedWrite } = proxyActivities<WarpActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});
const { recordExecution } = proxyLocalActivities<ExecutionActivities>({ startToCloseTimeout: '30 seconds' });

/**
 * A sensitive write an agent in manual mode asked for (the spec's "pending: true"): it waits for a
 * person to `approve` or `decline`, or expires; approved, it runs the write once and records the
 * outcome that `check_warp_executions` reports.
 */
export async function warpExecutionWorkflow(input: WarpExecutionArgs): Promise<WarpExecutionProgress> {
  const state: WarpExecutionProgress = { status: 'pending_approval' };

  setHandler(progress, () => state);
  const gate = openApprovalGate({
    status: () => state.status,
    validateEdits: (edits) => {
      if (edits.message !== undefined || edits.subject !== undefined)
        throw new Error(`${input.warp} takes no edits: approve it as it is, or decline it`);
    },
    onApprove: (): WarpExecutionProgress => ({ status: 'running' }),
  });

  const outcome = await gate.outcome(input.approvalTimeoutMs);
  if (outcome.status !== 'approved') {
    state.status = outcome.status;
    const error = refusalError(outcome, {
      declined: `${input.warp} was declined`,
      expired: `Nobody approved ${input.warp} in time`,
    });
    await recordExecution(input.executionId, { status: state.status, error });
    return { status: state.status };
  }
  state.status = 'running';
  await recordExecution(input.executionId, { status: 'running' });
  state.status = await runApprovedWrite(input.executionId);
  return { status: state.status };
}
warpExecutionWorkflow satisfies WarpExecutionWorkflow;
