import { defineQuery } from '@temporalio/workflow';
import type { ExecutionStatus } from './execution';

/** The contract of `campaign-contact-<executionId>`: an existing campaign sent to one contact, maybe after a delay. */

export const campaignContactWorkflowName = 'campaignContactWorkflow';

export interface CampaignContactArgs {
  executionId: string;
  /** The agent is in manual mode: a person approves first (the `approve` update / `decline` signal). */
  waitsForApproval: boolean;
  approvalTimeoutMs: number;
  /** The durable timer before the send (0: at once); it starts once approved. */
  delayMs: number;
}

export interface CampaignContactProgress {
  status: ExecutionStatus;
}

export type CampaignContactWorkflow = (args: CampaignContactArgs) => Promise<CampaignContactProgress>;

export { approve, decline } from './approval';
export const progress = defineQuery<CampaignContactProgress>('progress');

export interface CampaignContactActivities {
  /** The one send, idempotent by `<campaignId>:<contactId>:contact-<executionId>`; records the outcome and answers the settled status. */
  sendCampaignToContact(executionId: string): Promise<ExecutionStatus>;
}
