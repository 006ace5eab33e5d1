import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { approve as anyApproval, type ApprovalEdits } from './approval';
import type { ExecutionActivities, ExecutionStatus } from './execution';
import type { DeliveryDraft, DeliveryJson } from './schemas';
import type { WorkflowStart } from './start';

/**
 * The contract of `delivery-<executionId>`: what the API starts, approves, declines and queries,
 * and what the worker's delivery activities implement. Its schemas are in ./schemas, which
 * services/deliveries/deliveryTypes.ts re-exports for the API.
 */

export const deliveryWorkflowName = 'deliveryWorkflow';

export type { DeliveryDraft, DeliveryJson };

export interface DeliveryRecipient {
  contactId: string;
  address: string;
}

export interface DeliveryInput {
  executionId: string;
  teamId: string;
  agentId: string;
  channel: 'email' | 'sms' | 'whatsapp';
  mode: 'auto' | 'manual';
  approvalTimeoutMs: number;
  message: string;
  subject?: string;
  artifactIds: string[];
  recipients: DeliveryRecipient[];
}

export interface DeliveryOutcome {
  contactId: string;
  status: 'sent' | 'failed';
  deliveryId: string;
}

export interface DeliveryResult {
  status: Extract<ExecutionStatus, 'succeeded' | 'failed' | 'declined' | 'expired'>;
  deliveries: DeliveryJson[];
}

/** What the `progress` query answers. */
export interface DeliveryState {
  status: ExecutionStatus;
  draft?: DeliveryDraft;
  outcomes: DeliveryOutcome[];
}

export type DeliveryWorkflow = (input: DeliveryInput) => Promise<DeliveryResult>;

export const deliveryWorkflowId = (executionId: string) => `delivery-${executionId}`;

export const deliveryStart = {
  name: deliveryWorkflowName,
  id: (input) => deliveryWorkflowId(input.executionId),
  searchAttributes: (input) => ({ JobType: 'artifact-deliver', BusinessId: input.executionId }),
  // One delivery per execution, ever: a keyed retry that finds its execution settled sends nothing.
  idReusePolicy: 'REJECT_DUPLICATE',
} as const satisfies WorkflowStart<DeliveryWorkflow>;

/** `approve` (the one every approval takes), answering the delivery's approved draft. */
export const approve = defineUpdate<DeliveryDraft, [ApprovalEdits]>(anyApproval.name);
export { decline } from './approval';
export const progress = defineQuery<DeliveryState>('progress');

/** One recipient's message, as the workflow hands it to the send activity. */
export type DeliverySendInput = DeliveryInput & { recipient: DeliveryRecipient; subject?: string; body: string };

export interface DeliveryActivities extends ExecutionActivities {
  /** The message before approval: the sender's text and a block listing every deliverable with its links. */
  draftDelivery(input: DeliveryInput): Promise<DeliveryDraft>;
  /** Sends one recipient's message, once (idempotent through the delivery record and the provider key). */
  sendDeliveryMessage(input: DeliverySendInput): Promise<DeliveryOutcome>;
  recordSendFailure(input: DeliverySendInput & { reason: string }): Promise<DeliveryOutcome>;
  completeDelivery(input: DeliveryInput, outcomes: DeliveryOutcome[]): Promise<DeliveryResult>;
}
