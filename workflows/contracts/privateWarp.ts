import { defineQuery } from '@temporalio/workflow';
import type { ErrorBody } from './errorBody';
import type { ExecutionStatus } from './execution';
import type { WorkflowStart } from './start';

/** The contract of `private-warp-<executionId>`: a team's own warp, its steps interpreted in the workflow. */

export const privateWarpWorkflowName = 'privateWarpWorkflow';

/** A step's value that names an input or an earlier step's output: `"$.inputs.contactId"`, `"$.steps.contact.id"`. */
export type Mapping = unknown;

/** `{ ref, equals | notEquals | exists }`: a test on an input or an earlier step's output. */
export interface StepCondition {
  ref: string;
  equals?: unknown;
  notEquals?: unknown;
  exists?: boolean;
}

export type PrivateWarpStep =
  | { id?: string; tool: string; input?: Record<string, Mapping> }
  | { wait: string }
  | { if: StepCondition; then: PrivateWarpStep[]; else?: PrivateWarpStep[] }
  | { id?: string; prompt: string };

export interface PrivateWarpArgs {
  executionId: string;
}

export interface PrivateWarpProgress {
  status: ExecutionStatus;
  /** The key of the step running or waiting: `"2"`, `"3.then.0"`. */
  step: string | null;
}

export type PrivateWarpWorkflow = (args: PrivateWarpArgs) => Promise<PrivateWarpProgress>;

export const privateWarpWorkflowId = (executionId: string) => `private-warp-${executionId}`;

export const privateWarpStart = {
  name: privateWarpWorkflowName,
  id: (args) => privateWarpWorkflowId(args.executionId),
  searchAttributes: (args) => ({ JobType: 'private-warp', BusinessId: args.executionId }),
  idReusePolicy: 'REJECT_DUPLICATE',
} as const satisfies WorkflowStart<PrivateWarpWorkflow>;
export const progress = defineQuery<PrivateWarpProgress>('progress');

export type StepOutcome = { status: 'succeeded' } | { status: 'failed'; error: ErrorBody };

export interface PrivateWarpActivities {
  /** The warp's steps (they never change once created). */
  loadPrivateWarpSteps(executionId: string): Promise<PrivateWarpStep[]>;
  /** A tool or prompt step, once: its idempotency id is `<executionId>:<stepKey>`. */
  runPrivateWarpStep(executionId: string, stepKey: string): Promise<StepOutcome>;
  /** An `if` step's condition over the inputs and the outputs so far. */
  evaluatePrivateWarpCondition(executionId: string, stepKey: string): Promise<boolean>;
  /** Settles the execution: succeeded (result: every step's output) or failed with the error. */
  finishPrivateWarp(executionId: string, error: ErrorBody | null): Promise<ExecutionStatus>;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `"90s"`, `"10m"`, `"2h"`, `"1d"` in milliseconds (validated at creation by services/warps/duration.ts). */
export function durationMs(duration: string): number {
  const unit = duration.slice(-1) as keyof typeof UNIT_MS;
  return Number(duration.slice(0, -1)) * UNIT_MS[unit];
}
