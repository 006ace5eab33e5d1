import { defineQuery } from '@temporalio/workflow';
import type { ErrorBody } from './errorBody';
import type { WorkflowStart } from './start';

/**
 * The contract of `studio-produce-<sessionId>:<n>`: production n of a Studio session, where the
 * session's agent turns the session's brief into a deliverable (docs/STUDIO.md). The payload is
 * the production id; the brief and the result stay in Postgres.
 */

export const studioProduceWorkflowName = 'studioProduceWorkflow';

/** `<sessionId>:<n>`. */
export const studioProduceWorkflowId = (productionId: string) => `studio-produce-${productionId}`;

export type StudioProductionStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface StudioProduceArgs {
  productionId: string;
}

export interface StudioProduceProgress {
  status: StudioProductionStatus;
}

export type StudioProduceWorkflow = (args: StudioProduceArgs) => Promise<StudioProduceProgress>;

export const studioProduceStart = {
  name: studioProduceWorkflowName,
  id: (args) => studioProduceWorkflowId(args.productionId),
  searchAttributes: (args) => ({ JobType: 'studio.produce', BusinessId: args.productionId }),
} as const satisfies WorkflowStart<StudioProduceWorkflow>;
export const progress = defineQuery<StudioProduceProgress>('progress');

export interface StudioActivities {
  /**
   * Asks the agent's model for the deliverable and records it (or, with no model configured, an
   * honest placeholder). Once: a retry finds the recorded outcome. A model error a retry cannot
   * mend is recorded as the production's failure and answered `failed`.
   */
  produceStudioDraft(productionId: string): Promise<{ status: 'succeeded' | 'failed' }>;
  /** Records why the production failed when its attempts ran out. */
  failStudioProduction(productionId: string, error: ErrorBody): Promise<void>;
}
