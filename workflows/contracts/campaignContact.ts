import { defineQuery } from '@temporalio/workflow';
import type { ExecutionStatus } from './execution';
import type { WorkflowStart } from './start';

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

export const campaignContactWorkflowId = (executionId: string) => `campaign-contact-${executionId}`;

export const campaignContactStart = {
  name: campaignContactWorkflowName,
  id: (args) => campaignContactWorkflowId(args.executionId),
  searchAttributes: (args) => ({ JobType: 'svc-campaign-send-contact', BusinessId: args.executionId }),
  // One send per execution, ever: a keyed retry that finds its execution settled sends nothing.
  idReusePolicy: 'REJECT_DUPLICATE',
} as const satisfies WorkflowStart<CampaignContactWorkflow>;

export { approve, decline } from './approval';
export const progress = defineQuery<CampaignContactProgress>('progress');

export interface CampaignContactActivities {
  /** The one send, idempotent by `<campaignId>:<contactId>:contact-<executionId>`; records the outcome and answers the settled status. */
  sendCampaignToContact(executionId: string): Promise<ExecutionStatus>;
}
