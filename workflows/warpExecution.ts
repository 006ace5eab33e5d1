import { condition, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { createWarpActivities } from '../activities/warps';
import type { createDeliveryActivities } from '../activities/deliveries';
import type { ExecutionStatus } from '../services/deliveryTypes';
import type { WarpExecutionInput } from '../services/warps';
import { approve, decline, progress } from './warpExecutionMessages';

const { runApprovedWrite } = proxyActivities<ReturnType<typeof createWarpActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});
const { recordExecution } = proxyLocalActivities<ReturnType<typeof createDeliveryActivities>>({ startToCloseTimeout: '30 seconds' });

export { approve, decline, progress };

/**
 * A sensitive write an agent in manual mode asked for (the spec's "pending: true"): it waits for a
 * person to `approve` or `decline`, or expires; approved, it runs the write once and records the
 * outcome that `check_warp_executions` reports.
 */
export async function warpExecutionWorkflow(input: WarpExecutionInput): Promise<{ status: ExecutionStatus }> {
  const state: { status: ExecutionStatus } = { status: 'pending_approval' };
  let decision: { approved: true } | { approved: false; reason?: string } | undefined;

  setHandler(progress, () => state);
  setHandler(approve, () => {
    decision = { approved: true };
    return { status: 'running' };
  }, {
    validator: (edits) => {
      if (state.status !== 'pending_approval' || decision !== undefined) throw new Error(`Not waiting for approval (status ${state.status})`);
      if (edits.message !== undefined || edits.subject !== undefined) throw new Error(`${input.warp} takes no edits: approve it as it is, or decline it`);
    },
  });
  setHandler(decline, ({ reason }) => {
    if (state.status === 'pending_approval' && decision === undefined) decision = { approved: false, reason };
  });

  const decided = await condition(() => decision !== undefined, input.approvalTimeoutMs);
  if (!decided || !decision!.approved) {
    state.status = decided ? 'declined' : 'expired';
    const reason = decision && !decision.approved ? decision.reason : undefined;
    const error = decided
      ? { error: { code: 'declined', message: reason ? `Declined: ${reason}` : `${input.warp} was declined` } }
      : { error: { code: 'approval_expired', message: `Nobody approved ${input.warp} in time` } };
    await recordExecution(input.executionId, { status: state.status, error });
    return { status: state.status };
  }
  state.status = 'running';
  await recordExecution(input.executionId, { status: 'running' });
  state.status = await runApprovedWrite(input.executionId);
  return { status: state.status };
}
