import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { SignalDefinition } from '@temporalio/common';
import type { Knex } from 'knex';
import { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { Channel, ProviderError } from '../channels/types';
import type { Db } from '../db/knex';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../temporal/searchAttributes';
import type { campaignWorkflow } from '../workflows/campaign';
import { cancelSchedule as cancelScheduleSignal, cancelSend as cancelSendSignal, cardsDecided as cardsDecidedSignal } from '../workflows/campaignMessages';
import type { whatsappTemplateWorkflow } from '../workflows/whatsappTemplate';
import { refreshStatus, templateStatus } from '../workflows/whatsappTemplateMessages';
import { HTML_BODY_LIMIT, PLAIN_BODY_LIMIT, placeholderNameSchema, placeholdersIn, textGeneratorFor } from './campaignContent';
import { RENDER_COLUMNS, renderCampaignMessage } from './campaignSending';
import type { AppContext, TeamRef } from './context';
import { AppError, invalidState, notFound } from './errors';
import { newId } from './ids';
import { sendingAgent } from './agents';
import { hasActiveIntegration, integrationForSend, whatsappTemplatesFor } from './integrations';
import { decodeCursor, toPage, Page } from './pagination';
import type { Principal } from './principal';
import { applySegment, findSegment, SegmentDefinition } from './segments';
import { unsubscribeUrl } from './unsubscribe';

export const campaignStatusSchema = z.enum(['draft', 'pending', 'approved', 'rejected', 'scheduled', 'sending', 'completed', 'failed']);
export type CampaignStatus = z.infer<typeof campaignStatusSchema>;
const channelSchema = z.enum(['email', 'sms', 'whatsapp', 'push']);

const campaignFields = {
  name: z.string().trim().min(1).max(200),
  channel: channelSchema,
  subject: z.string().trim().min(1).max(300),
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
};

export const campaignCreateSchema = z.strictObject({
  name: campaignFields.name,
  channel: campaignFields.channel,
  subject: campaignFields.subject.optional(),
  content: campaignFields.content.default(''),
  contentHtml: campaignFields.contentHtml.optional(),
  segmentId: campaignFields.segmentId.optional(),
  tags: campaignFields.tags.optional(),
  contactIds: campaignFields.contactIds.optional(),
  templateParams: campaignFields.templateParams.default({}),
  aiParams: campaignFields.aiParams.default({}),
  agentId: campaignFields.agentId.optional(),
  language: campaignFields.language.optional(),
  category: campaignFields.category.optional(),
});
export type CampaignCreate = z.infer<typeof campaignCreateSchema>;

/** Every field may change (null clears); the audience is replaced only when a source is sent. */
export const campaignUpdateSchema = z.strictObject({
  name: campaignFields.name.optional(),
  subject: campaignFields.subject.nullable().optional(),
  content: campaignFields.content.optional(),
  contentHtml: campaignFields.contentHtml.nullable().optional(),
  segmentId: campaignFields.segmentId.nullable().optional(),
  tags: campaignFields.tags.nullable().optional(),
  contactIds: campaignFields.contactIds.nullable().optional(),
  templateParams: campaignFields.templateParams.optional(),
  aiParams: campaignFields.aiParams.optional(),
  agentId: campaignFields.agentId.nullable().optional(),
  language: campaignFields.language.nullable().optional(),
  category: campaignFields.category.nullable().optional(),
});
export type CampaignUpdate = z.infer<typeof campaignUpdateSchema>;

export const campaignSendSchema = z.strictObject({ scheduledAt: z.iso.datetime({ offset: true }).optional() });
export const campaignRetrySchema = z.strictObject({ contactIds: z.array(z.string().min(1).max(100)).min(1).max(10_000).optional() });
export const campaignTestSendSchema = z.strictObject({ contactId: z.string().min(1).max(100) });
export const campaignListQuerySchema = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  /** The active list by default; `archived=true` lists the archived ones. */
  archived: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  status: campaignStatusSchema.optional(),
});

export const campaignSchema = z.object({
  id: z.string(),
  name: z.string(),
  channel: channelSchema,
  subject: z.string().nullable(),
  content: z.string(),
  contentHtml: z.string().nullable(),
  segmentId: z.string().nullable(),
  tags: z.array(z.string()).nullable(),
  contactIds: z.array(z.string()).nullable(),
  templateParams: z.record(z.string(), z.string()),
  aiParams: z.record(z.string(), z.string()),
  agentId: z.string().nullable(),
  scheduledAt: z.iso.datetime().nullable(),
  language: z.string().nullable(),
  category: z.string().nullable(),
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
});
export type CampaignJson = z.infer<typeof campaignSchema>;

export interface CampaignRow {
  seq: number;
  id: string;
  team_id: string;
  name: string;
  channel: Channel;
  subject: string | null;
  content: string;
  content_html: string | null;
  segment_id: string | null;
  tags: string[] | null;
  contact_ids: string[] | null;
  template_params: Record<string, string>;
  ai_params: Record<string, string>;
  agent_id: string | null;
  scheduled_at: Date | null;
  language: string | null;
  category: string | null;
  status: CampaignStatus;
  run: number;
  send_approved_by: string | null;
  cancel_requested_at: Date | null;
  whatsapp_template_id: string | null;
  whatsapp_rejection_reason: string | null;
  recipient_count: number;
  sent_count: number;
  skipped_count: number;
  failed_count: number;
  opened_count: number;
  clicked_count: number;
  archived_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function presentCampaign(row: CampaignRow): CampaignJson {
  return {
    id: row.id, name: row.name, channel: row.channel, subject: row.subject, content: row.content, contentHtml: row.content_html,
    segmentId: row.segment_id, tags: row.tags, contactIds: row.contact_ids, templateParams: row.template_params, aiParams: row.ai_params,
    agentId: row.agent_id, scheduledAt: iso(row.scheduled_at), language: row.language, category: row.category, status: row.status,
    rejectionReason: row.whatsapp_rejection_reason,
    archived: row.archived_at !== null, recipientCount: row.recipient_count, sentCount: row.sent_count, skippedCount: row.skipped_count,
    failedCount: row.failed_count, openedCount: row.opened_count, clickedCount: row.clicked_count, startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at), createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(),
  };
}

const rule = (code: string, message: string, details?: Record<string, unknown>) => new AppError(422, code, message, details);

export interface Audience {
  segment: SegmentDefinition | null;
  tags: string[] | null;
  contactIds: string[] | null;
}

/** The audience's contacts: the union of the segment, the tagged contacts and the listed ones. */
export function audienceQuery(db: Db | Knex.Transaction, teamId: string, audience: Audience): Knex.QueryBuilder {
  return (db as Db)('contacts').where('contacts.team_id', teamId).where((q) => {
    if (audience.segment) q.orWhere((s) => applySegment(db as Db, s, audience.segment!));
    if (audience.tags?.length) q.orWhereRaw('contacts.tags && ?::text[]', [audience.tags]);
    if (audience.contactIds?.length) q.orWhereIn('contacts.id', audience.contactIds);
  });
}

export const addressColumn = (channel: Channel) => (channel === 'email' ? 'contacts.email' : channel === 'push' ? "contacts.properties->>'pushToken'" : 'contacts.phone');

/**
 * Why a contact would be skipped on this channel, as SQL (null: sendable). Opt-out first, then
 * consent, then a usable address.
 */
export const skipReasonSql = (channel: Channel) => `CASE
  WHEN contacts.opted_out_at IS NOT NULL THEN 'opted_out'
  WHEN contacts.marketing_consent <> 'granted' THEN 'pending_consent'
  WHEN coalesce(${addressColumn(channel)}, '') = '' THEN 'missing_channel'
  ELSE NULL END`;

export async function resolveAudience(db: Db, teamId: string, source: { segmentId?: string | null; tags?: string[] | null; contactIds?: string[] | null }): Promise<Audience> {
  const segment = source.segmentId ? (await findSegment(db, teamId, source.segmentId).catch(() => {
    throw rule('unknown_segment', 'segmentId is not a segment of this team', { segmentId: source.segmentId });
  })).definition : null;
  return { segment, tags: source.tags ?? null, contactIds: source.contactIds ?? null };
}

/** The one statement of a preview: the audience's contacts counted by skip reason (null: sendable). */
export const previewQuery = (db: Db, teamId: string, channel: Channel, audience: Audience) => audienceQuery(db, teamId, audience)
  .select(db.raw(`${skipReasonSql(channel)} AS reason`), db.raw('count(*) AS n'))
  .groupByRaw('1');

/** Sendable and skipped counts (with reasons) for an audience on a channel. */
export async function previewAudience(db: Db, teamId: string, channel: Channel, audience: Audience) {
  const rows: { reason: string | null; n: string }[] = await previewQuery(db, teamId, channel, audience);
  const skipped = Object.fromEntries(rows.filter((r) => r.reason).map((r) => [r.reason, Number(r.n)]));
  const sendable = Number(rows.find((r) => r.reason === null)?.n ?? 0);
  const total = rows.reduce((sum, r) => sum + Number(r.n), 0);
  return { channel, total, sendable, skipped: { pending_consent: 0, opted_out: 0, missing_channel: 0, ...skipped } };
}

export const audiencePreviewSchema = z.strictObject({
  campaignId: z.string().optional(),
  channel: channelSchema.optional(),
  segmentId: z.string().optional(),
  tags: campaignFields.tags.optional(),
  contactIds: campaignFields.contactIds.optional(),
});

/** The spec's preview: of a campaign's audience, or of `channel` with segmentId / tags / contactIds. */
export async function previewCampaignAudience(db: Db, teamId: string, input: z.infer<typeof audiencePreviewSchema>) {
  if (input.campaignId) {
    const campaign = await findCampaign(db, teamId, input.campaignId);
    const audience = await resolveAudience(db, teamId, { segmentId: campaign.segment_id, tags: campaign.tags, contactIds: campaign.contact_ids });
    return previewAudience(db, teamId, campaign.channel, audience);
  }
  if (!input.channel) {
    throw new AppError(400, 'validation_error', 'Give campaignId, or channel with segmentId / tags / contactIds', {
      issues: [{ path: 'channel', message: 'required without campaignId', code: 'invalid_type' }],
    });
  }
  return previewAudience(db, teamId, input.channel, await resolveAudience(db, teamId, input));
}

/** The content, placeholder and audience rules of create and update, in the spec's words. */
async function checkCampaign(db: Db, teamId: string, c: {
  name: string; channel: Channel; subject: string | null; content: string; contentHtml: string | null; templateParams: Record<string, string>;
  aiParams: Record<string, string>; agentId: string | null; language: string | null; category: string | null;
}, principal: Principal): Promise<void> {
  if (c.content.length > PLAIN_BODY_LIMIT) throw rule('body_too_long', `The plain body is limited to ${PLAIN_BODY_LIMIT} characters`, { limit: PLAIN_BODY_LIMIT, length: c.content.length });
  if ((c.contentHtml ?? '').length > HTML_BODY_LIMIT) throw rule('body_too_long', `The HTML body is limited to ${HTML_BODY_LIMIT} characters`, { limit: HTML_BODY_LIMIT, length: c.contentHtml!.length });
  if (c.channel !== 'email' && c.contentHtml) throw rule('html_email_only', 'contentHtml is for email campaigns only');
  if (c.channel !== 'email' && c.channel !== 'push' && c.subject) throw rule('subject_not_for_channel', `A ${c.channel} message has no subject`);
  if (!c.content.trim() && !c.contentHtml?.trim()) throw rule('content_required', 'The campaign has no content');
  const both = Object.keys(c.templateParams).filter((k) => k in c.aiParams);
  if (both.length) throw rule('placeholder_in_both_maps', 'A placeholder is in templateParams or aiParams, never both', { placeholders: both });
  if (c.channel === 'whatsapp') checkWhatsappTemplate(c);
  if (Object.keys(c.aiParams).length) {
    const agentId = c.agentId ?? (principal.kind === 'oauth' ? principal.agentId : null);
    if (!agentId || !(await hasActiveIntegration(db, teamId, agentId, c.channel))) {
      throw rule('ai_params_need_agent', `aiParams need an agent with an active ${c.channel} integration on the campaign`);
    }
  }
}

/** What a WhatsApp template must be, on create, on edit and again on submit. */
function checkWhatsappTemplate(c: { name: string; content: string; templateParams: Record<string, string>; aiParams: Record<string, string> }): void {
  if (Object.keys(c.aiParams).length) throw rule('whatsapp_ai_params', 'WhatsApp templates take static placeholders only (no aiParams)');
  if (!/^[a-z0-9_]+$/.test(c.name)) throw rule('whatsapp_name_not_slug', 'A WhatsApp template name is lowercase letters, digits and underscores', { name: c.name });
  const unmapped = placeholdersIn(c.content).filter((p) => !(p in c.templateParams));
  if (unmapped.length) throw rule('unmapped_placeholder', 'Every placeholder of a WhatsApp template must be mapped in templateParams', { placeholders: unmapped });
}

async function checkAudience(db: Db, teamId: string, channel: Channel, audience: Audience): Promise<void> {
  if (!audience.segment && !audience.tags?.length && !audience.contactIds?.length) {
    throw rule('empty_audience', 'Give the audience: segmentId, tags and/or contactIds');
  }
  if (audience.contactIds?.length) {
    const found = await db('contacts').where({ team_id: teamId }).whereIn('id', audience.contactIds).pluck('id');
    const missing = audience.contactIds.filter((id) => !found.includes(id));
    if (missing.length) throw rule('unknown_contact', 'Some contactIds are not contacts of this team', { contactIds: missing.slice(0, 100) });
  }
  const [{ n }] = await audienceQuery(db, teamId, audience).count({ n: '*' });
  if (Number(n) === 0) throw rule('empty_audience', 'The audience has no contacts', { channel });
}

async function checkAgent(db: Db, teamId: string, agentId: string | null | undefined): Promise<void> {
  if (agentId) await sendingAgent(db, teamId, agentId);
}

export async function createCampaign(ctx: AppContext, team: TeamRef, principal: Principal, input: CampaignCreate): Promise<CampaignJson> {
  const { db } = ctx;
  await checkAgent(db, team.id, input.agentId);
  await checkCampaign(db, team.id, {
    name: input.name, channel: input.channel, subject: input.subject ?? null, content: input.content, contentHtml: input.contentHtml ?? null,
    templateParams: input.templateParams, aiParams: input.aiParams, agentId: input.agentId ?? null, language: input.language ?? null, category: input.category ?? null,
  }, principal);
  await checkAudience(db, team.id, input.channel, await resolveAudience(db, team.id, input));
  const [row] = await db('campaigns').insert({
    id: newId('cmp'), team_id: team.id, name: input.name, channel: input.channel, subject: input.subject ?? null, content: input.content,
    content_html: input.contentHtml ?? null, segment_id: input.segmentId ?? null, tags: input.tags ?? null, contact_ids: input.contactIds ?? null,
    template_params: JSON.stringify(input.templateParams), ai_params: JSON.stringify(input.aiParams),
    agent_id: input.agentId ?? (principal.kind === 'oauth' ? principal.agentId : null), language: input.language ?? null, category: input.category ?? null,
  }).returning('*');
  return presentCampaign(row);
}

export async function findCampaign(db: Db | Knex.Transaction, teamId: string, campaignId: string, forUpdate = false): Promise<CampaignRow> {
  const q = (db as Db)('campaigns').where({ team_id: teamId, id: campaignId });
  const row = await (forUpdate ? q.forUpdate() : q).first();
  if (!row) throw notFound('Campaign');
  return row;
}

export const getCampaign = async (db: Db, teamId: string, id: string) => presentCampaign(await findCampaign(db, teamId, id));

export async function listCampaigns(db: Db, teamId: string, query: z.infer<typeof campaignListQuerySchema>): Promise<Page<CampaignJson>> {
  const q = db('campaigns').where({ team_id: teamId });
  if (query.archived) q.whereNotNull('archived_at');
  else q.whereNull('archived_at');
  if (query.status) q.where({ status: query.status });
  const after = decodeCursor(query.cursor);
  if (after !== null) q.where('seq', '>', after);
  return toPage(await q.orderBy('seq').limit(query.limit + 1), query.limit, presentCampaign);
}

const EDITABLE: CampaignStatus[] = ['draft', 'pending', 'approved', 'rejected'];

export async function updateCampaign(ctx: AppContext, team: TeamRef, principal: Principal, campaignId: string, input: CampaignUpdate): Promise<CampaignJson> {
  const { db } = ctx;
  const row = await findCampaign(db, team.id, campaignId);
  if (!EDITABLE.includes(row.status)) throw invalidState(`A campaign cannot be edited while ${row.status}`, { status: row.status });
  if (row.archived_at) throw invalidState('Unarchive the campaign before editing it');
  const next = {
    name: input.name ?? row.name, channel: row.channel,
    subject: input.subject !== undefined ? input.subject : row.subject,
    content: input.content ?? row.content,
    contentHtml: input.contentHtml !== undefined ? input.contentHtml : row.content_html,
    templateParams: input.templateParams ?? row.template_params, aiParams: input.aiParams ?? row.ai_params,
    agentId: input.agentId !== undefined ? input.agentId : row.agent_id,
    language: input.language !== undefined ? input.language : row.language,
    category: input.category !== undefined ? input.category : row.category,
  };
  await checkAgent(db, team.id, next.agentId);
  await checkCampaign(db, team.id, next, principal);
  const audienceChanged = input.segmentId !== undefined || input.tags !== undefined || input.contactIds !== undefined;
  if (audienceChanged) {
    await checkAudience(db, team.id, row.channel, await resolveAudience(db, team.id, {
      segmentId: input.segmentId !== undefined ? input.segmentId : row.segment_id,
      tags: input.tags !== undefined ? input.tags : row.tags,
      contactIds: input.contactIds !== undefined ? input.contactIds : row.contact_ids,
    }));
  }
  const contentChanged = ['subject', 'content', 'contentHtml', 'templateParams', 'aiParams', 'language', 'category', 'name'].some((k) => (input as Record<string, unknown>)[k] !== undefined);
  // An edit of content or audience sends a WhatsApp template back to Draft (to be resubmitted).
  const status = (row.status === 'pending' || row.status === 'approved') && (contentChanged || audienceChanged) ? 'draft' : row.status;
  // Only if nobody moved it meanwhile (a send, a submit): the checks above read that state.
  const [updated] = await db('campaigns').where({ id: row.id, status: row.status }).whereNull('archived_at').update({
    ...(status === 'draft' && row.status !== 'draft' ? { whatsapp_template_id: null, submitted_at: null, whatsapp_rejection_reason: null } : {}),
    name: next.name, subject: next.subject, content: next.content, content_html: next.contentHtml,
    template_params: JSON.stringify(next.templateParams), ai_params: JSON.stringify(next.aiParams), agent_id: next.agentId,
    language: next.language, category: next.category, status,
    ...(input.segmentId !== undefined ? { segment_id: input.segmentId } : {}),
    ...(input.tags !== undefined ? { tags: input.tags } : {}),
    ...(input.contactIds !== undefined ? { contact_ids: input.contactIds } : {}),
    updated_at: db.fn.now(),
  }).returning('*');
  if (!updated) throw invalidState('The campaign changed while it was being edited; read it and edit again');
  return presentCampaign(updated);
}

export const campaignWorkflowId = (campaignId: string, run: number) => `campaign-${campaignId}-run-${run}`;

/** The agent that sends a campaign: its own, else the team's first (one rule with deliveries). */
const campaignAgent = async (db: Db, row: CampaignRow) => (await sendingAgent(db, row.team_id, null, row.agent_id)).id;

async function startRun(ctx: AppContext, team: TeamRef, row: CampaignRow, run: number, args: { scheduledAt: string | null; retry: boolean }) {
  const client = await ctx.temporal.client();
  try {
    await client.workflow.start<typeof campaignWorkflow>('campaignWorkflow', {
      workflowId: campaignWorkflowId(row.id, run),
      taskQueue: ctx.temporal.taskQueue,
      args: [{ campaignId: row.id, teamId: team.id, run, scheduledAt: args.scheduledAt, retry: args.retry, batchSize: ctx.config.CAMPAIGN_BATCH_SIZE }],
      typedSearchAttributes: [{ key: TeamSlugKey, value: team.slug }, { key: JobTypeKey, value: 'campaign' }, { key: BusinessIdKey, value: row.id }],
      staticSummary: `campaign ${row.id} "${row.name}" run ${run} (${row.channel}) for team ${team.slug}`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * Send now, or at a future `scheduledAt` (a durable timer in the campaign's workflow).
 * `approvedBy`: the approved warp execution that already covers this send (no approval cards).
 */
export async function sendCampaign(
  ctx: AppContext, team: TeamRef, campaignId: string, input: z.infer<typeof campaignSendSchema>, approvedBy: string | null = null,
): Promise<CampaignJson> {
  const { db } = ctx;
  const scheduledAt = input.scheduledAt && new Date(input.scheduledAt).getTime() > Date.now() ? new Date(input.scheduledAt) : null;
  // The checks read without a lock (an audience count can take a while); the claim below only
  // succeeds if the campaign is still as read, so of two concurrent sends one wins (and an edit that lost its Draft to a send is refused).
  const current = await findCampaign(db, team.id, campaignId);
  if (current.archived_at) throw invalidState('Unarchive the campaign before sending it');
  const sendable = current.channel === 'whatsapp' ? ['approved'] : ['draft'];
  if (!sendable.includes(current.status)) {
    throw current.channel === 'whatsapp' && ['draft', 'pending', 'rejected'].includes(current.status)
      ? rule('whatsapp_not_approved', 'A WhatsApp campaign is sent only once its template is Approved', { status: current.status })
      : invalidState(`A ${current.status} campaign cannot be sent`, { status: current.status });
  }
  await checkAudience(db, team.id, current.channel, await resolveAudience(db, team.id, { segmentId: current.segment_id, tags: current.tags, contactIds: current.contact_ids }));
  const agentId = await campaignAgent(db, current);
  if (!(await hasActiveIntegration(db, team.id, agentId, current.channel))) {
    throw rule('integration_inactive', `The sending agent has no active ${current.channel} integration`, { agentId, channel: current.channel });
  }
  const run = current.run + 1;
  const [row] = await db('campaigns').where({ id: current.id, status: current.status, run: current.run }).whereNull('archived_at').update({
    status: scheduledAt ? 'scheduled' : 'sending', scheduled_at: scheduledAt, run, agent_id: agentId, send_approved_by: approvedBy, cancel_requested_at: null,
    started_at: scheduledAt ? null : db.fn.now(), updated_at: db.fn.now(),
  }).returning('*') as CampaignRow[];
  if (!row) throw invalidState('The campaign changed while it was being sent; read it and try again');
  await startRun(ctx, team, row, run, { scheduledAt: scheduledAt?.toISOString() ?? null, retry: false });
  return presentCampaign(row);
}

/** Waits (briefly) for the workflow to move the campaign out of `from`, then answers it as it stands. */
async function settled(db: Db, teamId: string, campaignId: string, from: CampaignStatus): Promise<CampaignJson> {
  for (let waited = 0; waited < 10_000; waited += 100) {
    const row = await findCampaign(db, teamId, campaignId);
    if (row.status !== from) return presentCampaign(row);
    await new Promise((r) => setTimeout(r, 100));
  }
  return getCampaign(db, teamId, campaignId);
}

export async function cancelSchedule(ctx: AppContext, teamId: string, campaignId: string): Promise<CampaignJson> {
  const row = await findCampaign(ctx.db, teamId, campaignId);
  if (row.status !== 'scheduled') throw invalidState('Only a Scheduled campaign can have its schedule cancelled', { status: row.status });
  await signal(ctx, row, cancelScheduleSignal);
  return settled(ctx.db, teamId, campaignId, 'scheduled');
}

export async function cancelSend(ctx: AppContext, teamId: string, campaignId: string): Promise<CampaignJson> {
  const row = await findCampaign(ctx.db, teamId, campaignId);
  if (row.status !== 'sending') throw invalidState('Only a Sending campaign can have its send cancelled', { status: row.status });
  // The batch in flight sees the mark within a moment and stops; the signal ends the run.
  await ctx.db('campaigns').where({ id: row.id, status: 'sending' }).update({ cancel_requested_at: ctx.db.raw('coalesce(cancel_requested_at, now())') });
  await signal(ctx, row, cancelSendSignal);
  return settled(ctx.db, teamId, campaignId, 'sending');
}

async function signal(ctx: AppContext, row: CampaignRow, definition: SignalDefinition<[]>) {
  try {
    await (await ctx.temporal.client()).workflow.getHandle(campaignWorkflowId(row.id, row.run)).signal(definition);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw invalidState('The campaign run has already ended');
    throw err;
  }
}

/** The spec's retry rules: failed always; skipped only for missing_channel or approval_skipped. */
export const RETRYABLE_SQL = "(status = 'failed' OR (status = 'skipped' AND skip_reason IN ('missing_channel','approval_skipped')))";

export async function retryCampaign(ctx: AppContext, team: TeamRef, campaignId: string, input: z.infer<typeof campaignRetrySchema>): Promise<{ retried: number }> {
  const { db } = ctx;
  const { row, run, retried } = await db.transaction(async (trx) => {
    const current = await findCampaign(trx, team.id, campaignId, true);
    if (current.status !== 'completed' && current.status !== 'failed') throw invalidState('Only a Completed or Failed campaign can be retried', { status: current.status });
    if (current.archived_at) throw invalidState('Unarchive the campaign before retrying it');
    const nextRun = current.run + 1;
    const reset = trx('campaign_recipients').where({ campaign_id: current.id }).whereRaw(RETRYABLE_SQL);
    if (input.contactIds) reset.whereIn('contact_id', input.contactIds);
    // A retried approval_skipped recipient counts as approved ("retryable after approval").
    const count = await reset.update({ status: 'pending', skip_reason: null, error: null, attempt: nextRun, card: trx.raw("CASE WHEN card IS NULL THEN NULL ELSE 'approved' END") });
    if (count === 0) return { row: current, run: nextRun, retried: 0 };
    const [updated] = await trx('campaigns').where({ id: current.id }).update({ status: 'sending', run: nextRun, finished_at: null, cancel_requested_at: null, updated_at: trx.fn.now() }).returning('*');
    return { row: updated as CampaignRow, run: nextRun, retried: count };
  });
  if (retried > 0) await startRun(ctx, team, row, run, { scheduledAt: null, retry: true });
  return { retried };
}

export async function archiveCampaign(db: Db, teamId: string, campaignId: string, archived: boolean): Promise<CampaignJson> {
  const row = await findCampaign(db, teamId, campaignId);
  if (archived && row.status !== 'completed' && row.status !== 'failed') throw invalidState('Only a Completed or Failed campaign can be archived', { status: row.status });
  const guarded = db('campaigns').where({ id: row.id });
  if (archived) guarded.whereIn('status', ['completed', 'failed']);
  const [updated] = await guarded.update({ archived_at: archived ? (row.archived_at ?? db.fn.now()) : null, updated_at: db.fn.now() }).returning('*');
  if (!updated) throw invalidState('The campaign changed meanwhile; only a Completed or Failed campaign can be archived');
  return presentCampaign(updated);
}

export async function deleteCampaign(ctx: AppContext, teamId: string, campaignId: string): Promise<void> {
  const row = await findCampaign(ctx.db, teamId, campaignId);
  if (row.status === 'sending') throw invalidState('A Sending campaign cannot be deleted; cancel the send first');
  if (row.status === 'scheduled') {
    await (await ctx.temporal.client()).workflow.getHandle(campaignWorkflowId(row.id, row.run)).terminate('campaign deleted').catch(() => undefined);
  }
  if (row.channel === 'whatsapp' && row.whatsapp_template_id) await removeTemplate(ctx, row).catch((err) => ctx.logger.warn({ err, campaignId: row.id }, 'WhatsApp template cleanup failed'));
  await ctx.db('campaigns').where({ id: row.id }).delete();
}

/** Best effort: the provider's template of a deleted campaign goes too. */
async function removeTemplate(ctx: AppContext, row: CampaignRow): Promise<void> {
  await (await whatsappTemplatesFor(ctx.db, ctx.secretBox, row.team_id, await campaignAgent(ctx.db, row)))?.remove(row.name);
}

export const whatsappTemplateWorkflowId = (campaignId: string) => `wa-template-${campaignId}`;

/**
 * Submit (WhatsApp): Draft or Rejected → Pending when the template is valid (every placeholder
 * mapped, slug name, language, category); the approval workflow takes it from there.
 */
export async function submitWhatsapp(ctx: AppContext, team: TeamRef, campaignId: string): Promise<CampaignJson> {
  const row = await findCampaign(ctx.db, team.id, campaignId);
  if (row.channel !== 'whatsapp') throw rule('not_whatsapp', 'Only WhatsApp campaigns have templates to submit');
  if (row.status !== 'draft' && row.status !== 'rejected') throw invalidState(`A ${row.status} campaign cannot be submitted`, { status: row.status });
  checkWhatsappTemplate({ name: row.name, content: row.content, templateParams: row.template_params, aiParams: row.ai_params });
  if (!row.language) throw rule('whatsapp_language_required', 'Set the template language (e.g. en or en_US)');
  if (!row.category) throw rule('whatsapp_category_required', 'Set the template category: MARKETING, UTILITY or AUTHENTICATION');
  const agentId = await campaignAgent(ctx.db, row);
  if (!(await whatsappTemplatesFor(ctx.db, ctx.secretBox, team.id, agentId))) {
    throw rule('integration_inactive', 'The campaign agent needs an active WhatsApp Cloud integration to submit templates', { agentId });
  }
  const [updated] = await ctx.db('campaigns').where({ id: row.id }).whereIn('status', ['draft', 'rejected'])
    .update({ status: 'pending', agent_id: agentId, whatsapp_template_id: null, whatsapp_rejection_reason: null, updated_at: ctx.db.fn.now() }).returning('*');
  if (!updated) throw invalidState('The campaign changed meanwhile; read it and try again');
  await (await ctx.temporal.client()).workflow.start<typeof whatsappTemplateWorkflow>('whatsappTemplateWorkflow', {
    workflowId: whatsappTemplateWorkflowId(row.id),
    taskQueue: ctx.temporal.taskQueue,
    args: [{ campaignId: row.id, refreshEveryMs: ctx.config.WHATSAPP_TEMPLATE_REFRESH_SECONDS * 1000 }],
    // A resubmission after a rejection or an edit starts a new run under the same id.
    workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    typedSearchAttributes: [{ key: TeamSlugKey, value: team.slug }, { key: JobTypeKey, value: 'whatsapp-template' }, { key: BusinessIdKey, value: row.id }],
    staticSummary: `WhatsApp template "${row.name}" of campaign ${row.id} (team ${team.slug})`,
  });
  return presentCampaign(updated);
}

/** Refresh (WhatsApp): ask the provider now instead of waiting for the next periodic check. */
export async function refreshWhatsapp(ctx: AppContext, teamId: string, campaignId: string): Promise<CampaignJson> {
  const row = await findCampaign(ctx.db, teamId, campaignId);
  if (row.channel !== 'whatsapp') throw rule('not_whatsapp', 'Only WhatsApp campaigns have templates');
  if (row.status !== 'pending') throw invalidState('Only a Pending template can be refreshed', { status: row.status });
  try {
    await (await ctx.temporal.client()).workflow.getHandle(whatsappTemplateWorkflowId(row.id)).signal(refreshStatus);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    // The template's workflow ended without a verdict (it failed, or an operator ended it): back to Draft, to be submitted again.
    await ctx.db('campaigns').where({ id: row.id, status: 'pending' }).update({
      status: 'draft', whatsapp_template_id: null, submitted_at: null, whatsapp_rejection_reason: 'The template check ended without a verdict; submit again', updated_at: ctx.db.fn.now(),
    });
    throw invalidState('The template check had ended without a verdict; the campaign is back in Draft, submit it again');
  }
  return settled(ctx.db, teamId, campaignId, 'pending');
}

/** The provider's status webhook: the template's campaign hears it as a signal. */
export async function templateStatusChanged(ctx: AppContext, templateId: string, status: string, reason?: string): Promise<boolean> {
  const row = await ctx.db('campaigns').where({ whatsapp_template_id: templateId, status: 'pending' }).first('id');
  if (!row) return false;
  try {
    await (await ctx.temporal.client()).workflow.getHandle(whatsappTemplateWorkflowId(row.id)).signal(templateStatus, { status, reason });
  } catch (err) {
    // No workflow waits any more (refresh puts such a campaign back to Draft): the event changes nothing.
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
  return true;
}

export const recipientQuerySchema = z.object({
  status: z.enum(['sent', 'failed', 'skipped', 'pending']).optional(),
  perPage: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().optional(),
});

export const recipientSchema = z.object({
  contactId: z.string(),
  status: z.enum(['sent', 'failed', 'skipped', 'pending']),
  skipReason: z.string().optional(),
  retryable: z.boolean(),
  address: z.string().nullable(),
  error: z.unknown().nullable(),
  providerMessageId: z.string().nullable(),
  sentAt: z.iso.datetime().nullable(),
  openedAt: z.iso.datetime().nullable(),
  clickedAt: z.iso.datetime().nullable(),
});

export async function listRecipients(db: Db, teamId: string, campaignId: string, query: z.infer<typeof recipientQuerySchema>) {
  await findCampaign(db, teamId, campaignId);
  const q = db('campaign_recipients').where({ campaign_id: campaignId });
  if (query.status) q.where({ status: query.status });
  const after = decodeCursor(query.cursor);
  if (after !== null) q.where('seq', '>', after);
  const rows = await q.orderBy('seq').limit(query.perPage + 1).select('*', db.raw(`${RETRYABLE_SQL} AS retryable`));
  return toPage(rows, query.perPage, (r: any): z.infer<typeof recipientSchema> => ({
    contactId: r.contact_id, status: r.status, ...(r.skip_reason ? { skipReason: r.skip_reason } : {}), retryable: r.retryable,
    address: r.address, error: r.error, providerMessageId: r.provider_message_id, sentAt: iso(r.sent_at), openedAt: iso(r.opened_at), clickedAt: iso(r.clicked_at),
  }));
}

/** Live counts from the recipients (the campaign's counters are settled from the same at the end of a run). */
export async function campaignStats(db: Db, teamId: string, campaignId: string) {
  const row = await findCampaign(db, teamId, campaignId);
  const rows: { status: string; skip_reason: string | null; n: string }[] = await db('campaign_recipients').where({ campaign_id: campaignId })
    .groupBy('status', 'skip_reason').select('status', 'skip_reason', db.raw('count(*) AS n'));
  const count = (status: string) => rows.filter((r) => r.status === status).reduce((s, r) => s + Number(r.n), 0);
  const [{ open }] = await db('campaign_recipients').where({ campaign_id: campaignId, status: 'pending', card: 'open' }).count({ open: '*' });
  return {
    awaitingApproval: Number(open),
    campaignId, status: row.status, recipients: rows.reduce((s, r) => s + Number(r.n), 0), pending: count('pending'), sent: count('sent'),
    failed: count('failed'), skipped: count('skipped'),
    skipReasons: Object.fromEntries(rows.filter((r) => r.skip_reason).map((r) => [r.skip_reason, Number(r.n)])),
    opened: row.opened_count, clicked: row.clicked_count,
  };
}

/**
 * Test send: the real subject and body for one contact, subject prefixed `[TEST]`, through the
 * campaign's agent, synchronously. Nothing of the campaign changes (no status, counts or recipients).
 */
export async function testSendCampaign(ctx: AppContext, teamId: string, campaignId: string, input: z.infer<typeof campaignTestSendSchema>) {
  const { db } = ctx;
  const row = await findCampaign(db, teamId, campaignId);
  if (row.channel !== 'email') throw rule('test_send_requires_email', 'Test sends are for email campaigns only', { channel: row.channel });
  const contact = await db('contacts').where({ team_id: teamId, id: input.contactId }).first(...RENDER_COLUMNS);
  if (!contact?.email) throw rule('test_send_requires_email', 'The test recipient must be a contact with an email address', { contactId: input.contactId });
  const agentId = await campaignAgent(db, row);
  const integration = await integrationForSend(db, ctx.secretBox, teamId, agentId, 'email');
  if (!integration) throw rule('integration_inactive', 'The campaign agent has no active email integration', { agentId });
  const message = await renderCampaignMessage(row, contact, textGeneratorFor(ctx.config), unsubscribeUrl(ctx.config.baseUrl, ctx.secretBox, input.contactId));
  const subject = `[TEST] ${message.subject ?? ''}`.trimEnd();
  try {
    const sent = await integration.adapter.send({
      channel: 'email', to: contact.email, from: integration.from, ...message, subject, idempotencyKey: `test:${campaignId}:${input.contactId}:${randomUUID()}`,
    });
    return { sent: true, to: contact.email as string, subject, providerMessageId: sent.providerMessageId };
  } catch (err) {
    if (err instanceof ProviderError) throw new AppError(502, 'provider_failed', `The email provider refused the test message: ${err.message}`, { retryable: err.retryable });
    throw err;
  }
}

export const cardDecisionSchema = z.strictObject({
  /** Contact ids to approve, or "all" open cards. */
  approve: z.union([z.literal('all'), z.array(z.string().min(1).max(100)).max(10_000)]).optional(),
  /** Contact ids to skip (they end `skipped` with `approval_skipped`), or "all". */
  skip: z.union([z.literal('all'), z.array(z.string().min(1).max(100)).max(10_000)]).optional(),
});

/** The open approval cards of a Sending campaign whose agent is in manual mode. */
export async function listCards(db: Db, teamId: string, campaignId: string, query: z.infer<typeof recipientQuerySchema>) {
  await findCampaign(db, teamId, campaignId);
  const q = db('campaign_recipients').where({ campaign_id: campaignId, status: 'pending', card: 'open' });
  const after = decodeCursor(query.cursor);
  if (after !== null) q.where('seq', '>', after);
  const rows = await q.orderBy('seq').limit(query.perPage + 1).select('seq', 'contact_id', 'address');
  return toPage(rows, query.perPage, (r: { contact_id: string; address: string | null }) => ({ contactId: r.contact_id, address: r.address }));
}

/**
 * Approves or skips approval cards; approved recipients are sent, skipped ones end
 * `approval_skipped` (retryable, once approved). The workflow hears a signal and goes on.
 */
export async function decideCards(ctx: AppContext, teamId: string, campaignId: string, input: z.infer<typeof cardDecisionSchema>) {
  const row = await findCampaign(ctx.db, teamId, campaignId);
  if (row.status !== 'sending') throw invalidState('Approval cards are decided while the campaign is Sending', { status: row.status });
  const open = () => ctx.db('campaign_recipients').where({ campaign_id: campaignId, status: 'pending', card: 'open' });
  const pick = (q: Knex.QueryBuilder, ids: 'all' | string[]) => (ids === 'all' ? q : q.whereIn('contact_id', ids));
  const approved = input.approve ? await pick(open(), input.approve).update({ card: 'approved' }) : 0;
  const skipped = input.skip ? await pick(open(), input.skip).update({ card: 'skipped', status: 'skipped', skip_reason: 'approval_skipped' }) : 0;
  if (approved + skipped > 0) await signal(ctx, row, cardsDecidedSignal);
  return { approved, skipped };
}
