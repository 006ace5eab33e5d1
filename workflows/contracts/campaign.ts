import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { WorkflowStart } from './start';

/** The contract of `campaign-<id>-run-<n>`: one send or retry of a campaign. */

export const campaignWorkflowName = 'campaignWorkflow';

export interface CampaignRunArgs {
  campaignId: string;
  teamId: string;
  run: number;
  /** A future send time (the API decided it is in the future); null: now. */
  scheduledAt: string | null;
  /** A retry run dispatches the recipients the API reset; it takes no new snapshot. */
  retry: boolean;
  batchSize: number;
  /** Set when the run continues as new: the schedule and the snapshot are behind it. */
  dispatching?: boolean;
  dispatched?: number;
  /** Set when the run continues as new: where its next batch claims from (DispatchedBatch). */
  afterSeq?: number;
  /** Events before continuing as new (default: the one limit in workflows/continueAsNew.ts; tests make it small). */
  continueAfterEvents?: number;
}

/**
 * What `snapshotAudience` answers when the campaign row names another run (or is no longer being
 * sent): this run's start timed out, the request put the campaign back, and the run must not send.
 */
export const SUPERSEDED_RUN = -1;

export interface CampaignResult {
  status: string;
}

export type CampaignWorkflow = (args: CampaignRunArgs) => Promise<CampaignResult>;

export const campaignWorkflowId = (campaignId: string, run: number) => `campaign-${campaignId}-run-${run}`;

export const campaignStart = {
  name: campaignWorkflowName,
  id: (args) => campaignWorkflowId(args.campaignId, args.run),
  searchAttributes: (args) => ({ JobType: 'campaign', BusinessId: args.campaignId }),
} as const satisfies WorkflowStart<CampaignWorkflow>;

export const cancelSchedule = defineSignal('cancelSchedule');
export const cancelSend = defineSignal('cancelSend');
/** Approval cards were decided (the API wrote the decisions): look for approved recipients. */
export const cardsDecided = defineSignal('cardsDecided');

export interface CampaignProgress {
  phase: 'scheduled' | 'snapshot' | 'sending' | 'awaiting_approval' | 'finishing' | 'done';
  dispatched: number;
}
export const progress = defineQuery<CampaignProgress>('progress');

export interface DispatchBatchInput {
  campaignId: string;
  attempt: number;
  batchSize: number;
  /** Claim only recipients after this seq (the previous batch's `continueAfterSeq`); 0 or absent: from the first. */
  afterSeq?: number;
}

export interface DispatchedBatch {
  processed: number;
  remaining: number;
  /** Pending recipients whose approval cards are still open. */
  awaitingApproval: number;
  /**
   * Where the next batch claims from: after the last recipient this one recorded, so that it does
   * not walk past every recipient already sent; 0 once the claims ran dry (the next pass starts
   * from the first, where a recipient whose card was approved meanwhile may be). Absent in histories
   * from before it existed: 0.
   */
  continueAfterSeq?: number;
}

export interface CampaignActivities {
  /** Freezes the audience into recipients (idempotent); answers how many. */
  snapshotAudience(campaignId: string, run: number): Promise<number>;
  dispatchBatch(input: DispatchBatchInput): Promise<DispatchedBatch>;
  returnToDraft(campaignId: string): Promise<void>;
  failRemaining(campaignId: string): Promise<void>;
  finishCampaign(campaignId: string, cancelled: boolean): Promise<{ status: 'completed' | 'failed' }>;
}
