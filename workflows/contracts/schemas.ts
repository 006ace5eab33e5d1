import { z } from 'zod';

/**
 * The zod schemas of what workflows carry, for the API and the services that parse and document
 * them. Contracts take their types from here with `import type` only, so zod never enters the
 * workflow bundle: the bundle's modules are evaluated again for every workflow the worker
 * instantiates, and building zod's schemas each time would slow every short workflow.
 */

/** The spec's Error resource; workflow results carry it (a delivery's failed records, a job's error). */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** A warp execution (`wx_…`): the read model every approval-gated workflow writes its status to. */
export const executionStatusSchema = z.enum([
  'pending_approval',
  'running',
  'succeeded',
  'failed',
  'declined',
  'expired',
]);
export type ExecutionStatus = z.infer<typeof executionStatusSchema>;

/** What a delivery sends, and what an approver may edit. */
export const deliveryDraftSchema = z.object({
  subject: z.string().optional(),
  /** The sender's text; what an approver may edit. */
  message: z.string(),
  /** The deliverables: titles, links, passwords and file links, appended to the message. */
  links: z.string(),
});
export type DeliveryDraft = z.infer<typeof deliveryDraftSchema>;

/** One delivery record: a message to one recipient. */
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

/** What a job's `progress` query answers. */
export const jobProgressSchema = z.object({
  phase: z.enum(['starting', 'importing', 'exporting', 'ingesting', 'finishing']),
  completed: z.number().int(),
  total: z.number().int().nullable(),
});
export type JobProgress = z.infer<typeof jobProgressSchema>;
