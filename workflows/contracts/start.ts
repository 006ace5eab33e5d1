import type { Workflow, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';

/**
 * How a workflow is started, declared once in its contract (`jobStart`, `deliveryStart`…) and used
 * by every start of it: temporal/client.ts (`startTracked`, `startOnce`, `startOptions`) adds the
 * task queue, the team's `TeamSlug` and the summary the caller writes. Types only: a declaration
 * is a read-only object literal (`{ … } as const satisfies WorkflowStart<W>`), so the workflow
 * bundle holds nothing more than the functions below.
 */

/** The search attributes a workflow carries beside its team's `TeamSlug` (searchAttributeKeys.ts). */
export interface StartAttributes {
  /** What it does: a job type, a warp, `campaign`, `agent.room`, `hook.run`… */
  JobType: string;
  /** The row it works for: a job, an execution, a campaign, a room, a batch… */
  BusinessId: string;
  /** A cohort's automation, and the step it starts at. */
  AutomationId?: string;
  JourneyStep?: number;
}

/** The one argument every workflow of this app takes. */
export type StartArgs<W extends Workflow> = Parameters<W>[0];

export interface WorkflowStart<W extends Workflow> {
  /** The workflow type the worker registers (workflows/index.ts). */
  readonly name: string;
  /** Its workflow id, from its argument; operators and the rows (`workflow_id`) know it by this. */
  readonly id: (args: StartArgs<W>) => string;
  readonly searchAttributes: (args: StartArgs<W>) => StartAttributes;
  /** `REJECT_DUPLICATE`: one workflow per id, ever (an execution, a batch, a hook run, a cohort). */
  readonly idReusePolicy?: WorkflowIdReusePolicy;
  /** What a start does while a workflow of the same id runs (the default, `FAIL`: already started). */
  readonly idConflictPolicy?: WorkflowIdConflictPolicy;
}

/** Any declaration, for the helpers that start one. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyWorkflowStart = WorkflowStart<(args: any) => Promise<unknown>>;

/** The argument a declared workflow is started with. */
export type ArgsOf<S extends AnyWorkflowStart> = S extends { id: (args: infer A) => string } ? A : never;
