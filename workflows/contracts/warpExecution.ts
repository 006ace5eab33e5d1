import { defineQuery } from '@temporalio/workflow';
import type { ExecutionStatus } from './execution';
import type { WorkflowStart } from './start';

/** The contract of `warp-<executionId>`: a sensitive write waiting for a person. */

export const warpExecutionWorkflowName = 'warpExecutionWorkflow';

/** What the workflow is started with; services/deliveries/warps.ts narrows `warp` to the registry's names. */
export interface WarpExecutionArgs<Warp extends string = string> {
  executionId: string;
  warp: Warp;
  approvalTimeoutMs: number;
}

/** Where a sensitive write stands: waiting for a person, running, or settled. */
export interface WarpExecutionProgress {
  status: ExecutionStatus;
}

export type WarpExecutionWorkflow = (input: WarpExecutionArgs) => Promise<WarpExecutionProgress>;

export const warpWorkflowId = (executionId: string) => `warp-${executionId}`;

/** The API's start (a turn starts its approvals as children, workflows/turn.ts, with the same id and attributes). */
export const warpExecutionStart = {
  name: warpExecutionWorkflowName,
  id: (input) => warpWorkflowId(input.executionId),
  searchAttributes: (input) => ({ JobType: input.warp, BusinessId: input.executionId }),
  // One workflow per execution, ever: a keyed retry that finds its execution settled starts nothing.
  idReusePolicy: 'REJECT_DUPLICATE',
} as const satisfies WorkflowStart<WarpExecutionWorkflow>;

export { approve, decline } from './approval';
export const progress = defineQuery<WarpExecutionProgress>('progress');

/** The write itself; the status writes are the shared `recordExecution` (ExecutionActivities). */
export interface WarpActivities {
  /** Runs the approved write through the same service function the API uses; answers the settled status. */
  runApprovedWrite(executionId: string): Promise<ExecutionStatus>;
}
