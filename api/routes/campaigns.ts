import { campaignTimeline, timelineSchema } from '../../services/campaigns/timeline';
import { z } from 'zod';
import { archiveCampaign, deleteCampaign } from '../../services/campaigns/archive';
import { audiencePreviewSchema, previewCampaignAudience } from '../../services/campaigns/audiencePreview';
import { getCampaign } from '../../services/campaigns/campaignRow';
import { cancelSchedule, cancelSend } from '../../services/campaigns/cancel';
import { cardDecisionSchema, decideCards, listCards } from '../../services/campaigns/cards';
import { createCampaign } from '../../services/campaigns/create';
import { listCampaigns } from '../../services/campaigns/list';
import { listRecipients, recipientQuerySchema, recipientSchema } from '../../services/campaigns/recipients';
import { campaignRetrySchema, retryCampaign } from '../../services/campaigns/retry';
import {
  campaignCreateSchema,
  campaignListQuerySchema,
  campaignSchema,
  campaignStatusSchema,
  campaignUpdateSchema,
} from '../../services/campaigns/schemas';
import { campaignSendSchema, sendCampaign } from '../../services/campaigns/send';
import { campaignStats } from '../../services/campaigns/stats';
import { campaignTestSendSchema, testSendCampaign } from '../../services/campaigns/testSend';
import { updateCampaign } from '../../services/campaigns/update';
import { refreshWhatsapp, submitWhatsapp } from '../../services/campaigns/whatsappTemplate';
import { contactSchema } from '../../services/contacts/contacts';
import type { AppContext } from '../../services/platform/context';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import {
  createSegment,
  deleteSegment,
  getSegment,
  listSegments,
  segmentContacts,
  segmentCreateSchema,
  segmentSchema,
} from '../../services/contacts/segments';
import { authOf } from '../auth';
import { defineRoute, json, locationHeader, noContent, Route } from '../routeTable';

const segmentParams = z.object({ segmentId: z.string() });
const campaignParams = z.object({ campaignId: z.string() });
const skipCounts = z
  .object({ pending_consent: z.number().int(), opted_out: z.number().int(), missing_channel: z.number().int() })
  .catchall(z.number().int());
const audiencePreview = z.object({
  channel: z.string(),
  total: z.number().int(),
  sendable: z.number().int(),
  skipped: skipCounts,
});
const retried = z.object({ retried: z.number().int().describe('How many recipients are sent again') });
const testSent = z.object({
  sent: z.boolean(),
  to: z.string(),
  subject: z.string().nullable(),
  providerMessageId: z.string().nullable(),
});
const card = z.object({ contactId: z.string(), address: z.string().nullable() });
const cardsDecided = z.object({ approved: z.number().int(), skipped: z.number().int() });
const stats = z.object({
  awaitingApproval: z.number().int(),
  campaignId: z.string(),
  status: campaignStatusSchema,
  recipients: z.number().int(),
  pending: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  skipReasons: z.record(z.string(), z.number().int()),
  opened: z.number().int(),
  clicked: z.number().int(),
});

/** Campaigns and segments (mounted once at /v1). */
export function campaignsRoutes(ctx: AppContext): Route[] {
  const campaign = (description: string) => ({ 200: json(campaignSchema, description) });
  return [
    defineRoute({
      method: 'get',
      path: '/segments',
      tag: 'Segments',
      access: 'read',
      summary: 'List segments',
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(segmentSchema), 'A page of segments') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listSegments(ctx.db, authOf(req).team.id, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/segments',
      tag: 'Segments',
      access: 'write',
      summary: 'Create a segment: groups of conditions, each all/any (no update exists)',
      body: { kind: 'json', schema: segmentCreateSchema },
      responses: { 201: json(segmentSchema, 'The segment') },
      errors: [422],
      handler: async ({ req, body }) => ({ status: 201, body: await createSegment(ctx.db, authOf(req).team.id, body) }),
    }),
    defineRoute({
      method: 'get',
      path: '/segments/{segmentId}',
      tag: 'Segments',
      access: 'read',
      summary: 'Read a segment',
      params: segmentParams,
      responses: { 200: json(segmentSchema, 'The segment') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getSegment(ctx.db, authOf(req).team.id, params.segmentId),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/segments/{segmentId}/contacts',
      tag: 'Segments',
      access: 'read',
      summary: 'The contacts a segment holds now',
      params: segmentParams,
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(contactSchema), 'A page of contacts') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await segmentContacts(ctx.db, authOf(req).team.id, params.segmentId, query),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/segments/{segmentId}',
      tag: 'Segments',
      access: 'write',
      summary: 'Delete a segment no unsent campaign uses',
      params: segmentParams,
      responses: { 204: noContent('Deleted') },
      errors: [409],
      handler: async ({ req, params }) => {
        await deleteSegment(ctx.db, authOf(req).team.id, params.segmentId);
        return { status: 204 };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/campaigns/audience-preview',
      tag: 'Campaigns',
      access: 'read',
      summary:
        'Sendable versus skipped counts with reasons, for a campaign or a channel with segmentId / tags / contactIds',
      body: { kind: 'json', schema: audiencePreviewSchema },
      responses: { 200: json(audiencePreview, 'The counts') },
      errors: [404, 422],
      handler: async ({ req, body }) => ({
        status: 200,
        body: await previewCampaignAudience(ctx.db, authOf(req).team.id, body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/campaigns',
      tag: 'Campaigns',
      access: 'read',
      summary: 'List campaigns (the active list; archived=true for the archived)',
      query: campaignListQuerySchema,
      responses: { 200: json(pageSchema(campaignSchema), 'A page of campaigns') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listCampaigns(ctx.db, authOf(req).team.id, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Create a campaign (Draft)',
      body: { kind: 'json', schema: campaignCreateSchema },
      responses: { 201: json(campaignSchema, 'The campaign', locationHeader) },
      errors: [422],
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        const created = await createCampaign(ctx, team, principal, body);
        return { status: 201, body: created, headers: { Location: `${ctx.config.baseUrl}/campaigns/${created.id}` } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/campaigns/{campaignId}',
      tag: 'Campaigns',
      access: 'read',
      summary: 'Read a campaign',
      params: campaignParams,
      responses: campaign('The campaign'),
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getCampaign(ctx.db, authOf(req).team.id, params.campaignId),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/campaigns/{campaignId}',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Edit (Draft, Pending, Approved, Rejected only); sending an audience source replaces the audience',
      params: campaignParams,
      body: { kind: 'json', schema: campaignUpdateSchema },
      responses: campaign('The campaign'),
      errors: [409, 422],
      handler: async ({ req, params, body }) => {
        const { team, principal } = authOf(req);
        return { status: 200, body: await updateCampaign(ctx, team, principal, params.campaignId, body) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/campaigns/{campaignId}',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Delete (not while Sending)',
      params: campaignParams,
      responses: { 204: noContent('Deleted') },
      errors: [409, 503],
      handler: async ({ req, params }) => {
        await deleteCampaign(ctx, authOf(req).team.id, params.campaignId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns/{campaignId}/send',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Send now, or at a future scheduledAt (Scheduled)',
      params: campaignParams,
      body: { kind: 'json', schema: campaignSendSchema, optional: true },
      responses: campaign('The campaign, Sending or Scheduled'),
      errors: [409, 422, 503],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await sendCampaign(ctx, authOf(req).team, params.campaignId, body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns/{campaignId}/cancel-schedule',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Back to Draft, only while Scheduled',
      params: campaignParams,
      responses: campaign('The campaign'),
      errors: [409, 503],
      handler: async ({ req, params }) => ({
        status: 200,
        body: await cancelSchedule(ctx, authOf(req).team.id, params.campaignId),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns/{campaignId}/cancel-send',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Stop sending, only while Sending: the rest fail with cancelled, the campaign ends Failed',
      params: campaignParams,
      responses: campaign('The campaign'),
      errors: [409, 503],
      handler: async ({ req, params }) => ({
        status: 200,
        body: await cancelSend(ctx, authOf(req).team.id, params.campaignId),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns/{campaignId}/retry',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Send again to the retryable recipients (optionally only contactIds), only Completed or Failed',
      params: campaignParams,
      body: { kind: 'json', schema: campaignRetrySchema, optional: true },
      responses: { 200: json(retried, '{ retried }: how many are sent again') },
      errors: [409, 503],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await retryCampaign(ctx, authOf(req).team, params.campaignId, body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns/{campaignId}/archive',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Archive a Completed or Failed campaign',
      params: campaignParams,
      responses: campaign('The campaign'),
      errors: [409],
      handler: async ({ req, params }) => ({
        status: 200,
        body: await archiveCampaign(ctx.db, authOf(req).team.id, params.campaignId, true),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns/{campaignId}/unarchive',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Unarchive',
      params: campaignParams,
      responses: campaign('The campaign'),
      errors: [409],
      handler: async ({ req, params }) => ({
        status: 200,
        body: await archiveCampaign(ctx.db, authOf(req).team.id, params.campaignId, false),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns/{campaignId}/send-test',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Synchronous test send to one contact with an email ([TEST] subject; nothing changes)',
      params: campaignParams,
      body: { kind: 'json', schema: campaignTestSendSchema },
      responses: { 200: json(testSent, 'What was sent') },
      errors: [422, 502],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await testSendCampaign(ctx, authOf(req).team.id, params.campaignId, body),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns/{campaignId}/whatsapp/submit',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Submit the WhatsApp template for approval (Draft or Rejected → Pending)',
      params: campaignParams,
      responses: campaign('The campaign'),
      errors: [409, 422, 503],
      handler: async ({ req, params }) => ({
        status: 200,
        body: await submitWhatsapp(ctx, authOf(req).team, params.campaignId),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns/{campaignId}/whatsapp/refresh',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Ask the provider for the template status now (Pending only)',
      params: campaignParams,
      responses: campaign('The campaign'),
      errors: [409, 422],
      handler: async ({ req, params }) => ({
        status: 200,
        body: await refreshWhatsapp(ctx, authOf(req).team.id, params.campaignId),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/campaigns/{campaignId}/cards',
      tag: 'Campaigns',
      access: 'read',
      summary: 'Open approval cards (a manual-mode agent sends nobody until a card is approved)',
      params: campaignParams,
      query: recipientQuerySchema,
      responses: { 200: json(pageSchema(card), 'A page of open cards') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listCards(ctx.db, authOf(req).team.id, params.campaignId, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/campaigns/{campaignId}/cards',
      tag: 'Campaigns',
      access: 'write',
      summary: 'Approve or skip approval cards (contact ids or "all"); skipped ones end approval_skipped',
      params: campaignParams,
      body: { kind: 'json', schema: cardDecisionSchema },
      responses: { 200: json(cardsDecided, 'How many were approved and skipped') },
      errors: [409],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await decideCards(ctx, authOf(req).team.id, params.campaignId, body),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/campaigns/{campaignId}/recipients',
      tag: 'Campaigns',
      access: 'read',
      summary: 'Recipients with status, skipReason and retryable (status filter, perPage)',
      params: campaignParams,
      query: recipientQuerySchema,
      responses: { 200: json(pageSchema(recipientSchema), 'A page of recipients') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listRecipients(ctx.db, authOf(req).team.id, params.campaignId, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/campaigns/{campaignId}/stats',
      tag: 'Campaigns',
      access: 'read',
      summary: 'Live counts of a campaign',
      params: campaignParams,
      responses: { 200: json(stats, 'The counts') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await campaignStats(ctx.db, authOf(req).team.id, params.campaignId),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/campaigns/{campaignId}/timeline',
      tag: 'Campaigns',
      access: 'read',
      summary: 'Messages sent, opened and clicked over time (buckets of 1 s to 1 day, at most 120 points)',
      params: campaignParams,
      responses: { 200: json(timelineSchema, 'The timeline') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await campaignTimeline(ctx.db, authOf(req).team.id, params.campaignId),
      }),
    }),
  ];
}
