import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { approve as anyApproval, type ApprovalEdits } from './approval';
import { errorBodySchema } from './errorBody';
import type { ExecutionActivities, ExecutionStatus } from './execution';

/**
 * The contract of `delivery-<executionId>`: what the API starts, approves, declines and queries,
 * and what the worker's delivery activities implement. services/deliveries/deliveryTypes.ts re-exports the
 * schemas for the API.
 */

export const deliveryWorkflowName = 'deliveryWorkflow';

export const deliveryDraftSchema = z.object({
  subject: z.string().optional(),
  /** The sender's text; what an approver may edit. */
  message: z.string(),
  /** The deliverables: titles, links, passwords and file links, appended to the message. */
  links: z.string(),
});
export type DeliveryDraft = z.infer<typeof deliveryDraftSchema>;

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

export const deliverySchema = z.object({
  id: z.string(),
  executionId: z.string(),
  /** The recipient of this message (kept even if an artifact's contact changes later). */
  contactId: z.string(),
  artifactIds: z.array(z.string()),
  integration: z.string(),
  provider: z.string(),
  to: z.string(),
  subject: z.string().nullable(),
  message: z.string(),
  status: z.enum(['sent', 'failed']),
  providerMessageId: z.string().nullable(),
  error: errorBodySchema.nullable(),
  sentAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});
export type DeliveryJson = z.infer<typeof deliverySchema>;

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
