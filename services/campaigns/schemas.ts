import { z } from 'zod';
import { channelSchema } from '../../channels/types';
import { placeholderNameSchema } from './content';

/** The campaign resource: its fields, the create and update bodies, the list query and the JSON a campaign is answered as. */
export const campaignStatusSchema = z.enum([
  'draft',
  'pending',
  'approved',
  'rejected',
  'scheduled',
  'sending',
  'completed',
  'failed',
]);
export type CampaignStatus = z.infer<typeof campaignStatusSchema>;

/** What a client may do with a campaign; which ones its state allows is stateTable.ts's. */
export const CAMPAIGN_ACTIONS = [
  'edit',
  'send',
  'cancel-schedule',
  'cancel-send',
  'test-send',
  'retry',
  'archive',
  'unarchive',
  'delete',
  'whatsapp-submit',
  'whatsapp-refresh',
] as const;
export type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

/** Each field's rule once; create, update and the audience preview take theirs from here. */
export const campaignFields = {
  name: z.string().trim().min(1).max(200),
  channel: channelSchema,
  subject: z.string().trim().min(1).max(300),
  /** A push notification's title (stored in the subject column: campaignRow.ts). */
  title: z.string().trim().min(1).max(300),
  content: z.string(),
  contentHtml: z.string(),
  segmentId: z.string().min(1).max(100),
  tags: z.array(z.string().trim().min(1).max(100)).max(100),
  contactIds: z.array(z.string().min(1).max(100)).max(10_000),
  templateParams: z.record(placeholderNameSchema, z.string().max(500)),
  aiParams: z.record(placeholderNameSchema, z.string().trim().min(1).max(500)),
  agentId: z.string().max(100),
  language: z.string().regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, 'a language code such as en or en_US'),
  category: z.enum(['MARKETING', 'UTILITY', 'AUTHENTICATION']),
  /** When a send starts: kept on the Draft; `send` without its own time uses it (send.ts). */
  scheduledAt: z.iso.datetime({ offset: true }),
};

export const campaignCreateSchema = z.strictObject({
  name: campaignFields.name,
  channel: campaignFields.channel,
  subject: campaignFields.subject.optional().describe('Email only'),
  title: campaignFields.title.optional().describe('Push only'),
  content: campaignFields.content.default(''),
  contentHtml: campaignFields.contentHtml.optional().describe('Email only'),
  segmentId: campaignFields.segmentId.optional(),
  tags: campaignFields.tags.optional(),
  contactIds: campaignFields.contactIds.optional(),
  templateParams: campaignFields.templateParams.default({}),
  aiParams: campaignFields.aiParams.default({}),
  agentId: campaignFields.agentId.optional(),
  scheduledAt: campaignFields.scheduledAt
    .optional()
    .describe('ISO 8601; the campaign stays Draft, and a send without its own scheduledAt is due then'),
  language: campaignFields.language.optional().describe('WhatsApp only'),
  category: campaignFields.category.optional().describe('WhatsApp only'),
});
export type CampaignCreate = z.infer<typeof campaignCreateSchema>;

/** Every field may change (null clears); the audience is replaced only when a source is sent. */
export const campaignUpdateSchema = z.strictObject({
  name: campaignFields.name.optional(),
  subject: campaignFields.subject.nullable().optional().describe('Email only'),
  title: campaignFields.title.nullable().optional().describe('Push only'),
  content: campaignFields.content.optional(),
  contentHtml: campaignFields.contentHtml.nullable().optional().describe('Email only'),
  segmentId: campaignFields.segmentId.nullable().optional(),
  tags: campaignFields.tags.nullable().optional(),
  contactIds: campaignFields.contactIds.nullable().optional(),
  templateParams: campaignFields.templateParams.optional(),
  aiParams: campaignFields.aiParams.optional(),
  agentId: campaignFields.agentId.nullable().optional(),
  scheduledAt: campaignFields.scheduledAt
    .nullable()
    .optional()
    .describe('ISO 8601; null clears it. A send without its own scheduledAt is due then'),
  language: campaignFields.language.nullable().optional().describe('WhatsApp only'),
  category: campaignFields.category.nullable().optional().describe('WhatsApp only'),
});
export type CampaignUpdate = z.infer<typeof campaignUpdateSchema>;

export const campaignListQuerySchema = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  /** The active list by default; `archived=true` lists the archived ones. */
  archived: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  status: campaignStatusSchema.optional(),
});

export const campaignSchema = z.object({
  id: z.string(),
  name: z.string(),
  channel: channelSchema,
  subject: z.string().nullable().describe('Email only (null on other channels)'),
  title: z.string().nullable().describe("A push notification's title; push only (null on other channels)"),
  content: z.string(),
  contentHtml: z.string().nullable(),
  segmentId: z.string().nullable(),
  tags: z.array(z.string()).nullable(),
  contactIds: z.array(z.string()).nullable(),
  templateParams: z.record(z.string(), z.string()),
  aiParams: z.record(z.string(), z.string()),
  agentId: z.string().nullable(),
  scheduledAt: z.iso
    .datetime()
    .nullable()
    .describe(
      'When the send is due: set on create or edit (the campaign stays Draft) or by send; null once a send starts now, and after cancel-schedule',
    ),
  language: z.string().nullable().describe('WhatsApp only (null on other channels)'),
  category: z.string().nullable().describe('WhatsApp only (null on other channels)'),
  status: campaignStatusSchema,
  /** WhatsApp: why the provider rejected the template. */
  rejectionReason: z.string().nullable(),
  archived: z.boolean(),
  recipientCount: z.number().int(),
  sentCount: z.number().int(),
  skippedCount: z.number().int(),
  failedCount: z.number().int(),
  openedCount: z.number().int(),
  clickedCount: z.number().int(),
  startedAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  /** The operations the campaign's state allows now (the state table); a client shows only these. */
  actions: z.array(z.enum(CAMPAIGN_ACTIONS)),
});
export type CampaignJson = z.infer<typeof campaignSchema>;
