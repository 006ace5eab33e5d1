import { z } from 'zod';
import { errorBodySchema } from './errors';

/** What the delivery workflow, its activities and the API share. Workflow code imports only the types. */

export const executionStatusSchema = z.enum(['pending_approval', 'running', 'succeeded', 'failed', 'declined', 'expired']);
export type ExecutionStatus = z.infer<typeof executionStatusSchema>;

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

export interface DeliveryState {
  status: ExecutionStatus;
  draft?: DeliveryDraft;
  outcomes: DeliveryOutcome[];
}
