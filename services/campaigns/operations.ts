import { campaignParams } from './campaignParams';
import { deleteCampaign } from './archive';
import { audiencePreviewResultSchema, audiencePreviewSchema, previewCampaignAudience } from './audiencePreview';
import { getCampaign } from './campaignRow';
import { createCampaign } from './create';
import { listCampaigns } from './list';
import { campaignCreateSchema, campaignListQuerySchema, campaignSchema, campaignUpdateSchema } from './schemas';
import { updateCampaign } from './update';
import { defineOperation, Feature, PENDING_NOTE } from '../platform/operation';
import { pageSchema } from '../platform/pagination';
import { campaignRunOperations } from './runOperations';
import { campaignReportOperations, campaignTotalsOperation } from './reportOperations';

/** Campaigns: their drafts, audiences and lifecycle (the Campaigns app on MCP). */
export const campaigns: Feature = {
  name: 'campaigns',
  operations: [
    defineOperation({
      name: 'campaigns.previewAudience',
      access: { level: 'read', app: 'campaigns' },
      input: audiencePreviewSchema,
      output: audiencePreviewResultSchema,
      handler: (ctx, { team }, input) => previewCampaignAudience(ctx.db, team.id, input),
      http: {
        method: 'post',
        path: '/campaigns/audience-preview',
        tag: 'Campaigns',
        summary:
          'Sendable versus skipped counts with reasons, for a campaign or a channel with segmentId / tags / contactIds',
        status: 200,
        answer: 'The counts',
        body: { schema: audiencePreviewSchema },
        errors: [404, 422],
      },
      mcp: {
        name: 'preview_campaign_audience',
        title: 'Preview a campaign audience',
        description:
          'How many contacts would receive a campaign and how many are skipped, by reason (pending_consent, ' +
          'opted_out, missing_channel). Give campaignId, or channel with segmentId / tags / contactIds. Call it ' +
          'before send_campaign.',
      },
    }),
    defineOperation({
      name: 'campaigns.list',
      access: { level: 'read', app: 'campaigns' },
      input: campaignListQuerySchema,
      output: pageSchema(campaignSchema),
      handler: (ctx, { team }, query) => listCampaigns(ctx.db, team.id, query),
      http: {
        method: 'get',
        path: '/campaigns',
        tag: 'Campaigns',
        summary: 'List campaigns (the active list; archived=true for the archived)',
        status: 200,
        answer: 'A page of campaigns',
        query: campaignListQuerySchema,
      },
      mcp: {
        name: 'list_campaigns',
        title: 'List campaigns',
        description:
          'The team\'s campaigns with their status and counts, newest first; archived ones with archived "true".',
      },
    }),
    defineOperation({
      name: 'campaigns.create',
      access: { level: 'write', app: 'campaigns' },
      input: campaignCreateSchema,
      output: campaignSchema,
      // Spec MCP rule 2: aiParams without agentId use the connected agent, however it was connected.
      handler: (ctx, { team, principal, agentId }, input) => createCampaign(ctx, team, principal, input, agentId),
      http: {
        method: 'post',
        path: '/campaigns',
        tag: 'Campaigns',
        summary: 'Create a campaign (Draft)',
        status: 201,
        answer: 'The campaign',
        body: { schema: campaignCreateSchema },
        location: (created, ctx) => `${ctx.config.baseUrl}/campaigns/${created.id}`,
        errors: [422],
      },
      mcp: {
        name: 'create_campaign',
        title: 'Create a campaign',
        description:
          'Creates a Draft campaign (email, sms, whatsapp or push), audience by segmentId, tags and/or contactIds. ' +
          'subject, contentHtml: email only; title: push only; language, category: WhatsApp only. scheduledAt keeps ' +
          'it Draft; send_campaign is then due at it. Placeholders ({{firstName}}) are not inferred: map each in ' +
          'templateParams (static or contact field) or aiParams. Then preview_campaign_audience, then send_campaign.',
      },
    }),
    // Before /campaigns/{campaignId}: Express matches in order.
    campaignTotalsOperation,
    defineOperation({
      name: 'campaigns.get',
      access: { level: 'read', app: 'campaigns' },
      output: campaignSchema,
      handler: (ctx, { team }, { campaignId }) => getCampaign(ctx.db, team.id, campaignId),
      http: {
        method: 'get',
        path: '/campaigns/{campaignId}',
        tag: 'Campaigns',
        summary: 'Read a campaign',
        status: 200,
        answer: 'The campaign',
        params: campaignParams,
      },
    }),
    defineOperation({
      name: 'campaigns.update',
      access: { level: 'write', app: 'campaigns' },
      output: campaignSchema,
      handler: (ctx, { team, principal }, { campaignId, ...changes }) =>
        updateCampaign(ctx, team, principal, campaignId, changes),
      http: {
        method: 'patch',
        path: '/campaigns/{campaignId}',
        tag: 'Campaigns',
        summary: 'Edit (Draft, Pending, Approved, Rejected only); sending an audience source replaces the audience',
        status: 200,
        answer: 'The campaign',
        params: campaignParams,
        body: { schema: campaignUpdateSchema },
        errors: [409, 422],
      },
    }),
    defineOperation({
      name: 'campaigns.delete',
      access: { level: 'write', app: 'campaigns', sensitive: 'svc-campaign-delete' },
      handler: (ctx, { team }, { campaignId }) => deleteCampaign(ctx, team.id, campaignId),
      http: {
        method: 'delete',
        path: '/campaigns/{campaignId}',
        tag: 'Campaigns',
        summary: 'Delete (not while Sending)',
        status: 204,
        answer: 'Deleted',
        params: campaignParams,
        errors: [409, 503],
      },
      mcp: {
        name: 'delete_campaign',
        title: 'Delete a campaign',
        description: `Deletes a campaign that is not Sending (a Scheduled one is unscheduled). ${PENDING_NOTE}`,
      },
    }),
    ...campaignRunOperations,
    ...campaignReportOperations,
  ],
};
