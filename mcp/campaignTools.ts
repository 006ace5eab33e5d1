import { z } from 'zod';
import { audiencePreviewSchema, previewCampaignAudience } from '../services/campaigns/audiencePreview';
import { createCampaign } from '../services/campaigns/create';
import { listCampaigns } from '../services/campaigns/list';
import { campaignCreateSchema, campaignListQuerySchema } from '../services/campaigns/schemas';
import { campaignStats } from '../services/campaigns/stats';
import { id, PENDING_NOTE, sensitiveTool, tool, Tool } from './toolKit';

/** The Campaigns app: campaigns, their audiences and stats. */
export const campaignTools: Tool[] = [
  tool({
    name: 'create_campaign',
    title: 'Create a campaign',
    description:
      'Creates a Draft campaign (email, sms, whatsapp or push), audience by segmentId, tags and/or contactIds. ' +
      'subject, contentHtml: email only; title: push only; language, category: WhatsApp only. scheduledAt keeps ' +
      'it Draft; send_campaign is then due at it. Placeholders ({{firstName}}) are not inferred: map each in ' +
      'templateParams (static or contact field) or aiParams. Then preview_campaign_audience, then send_campaign.',
    app: 'campaigns',
    access: 'write',
    input: campaignCreateSchema,
    // Spec MCP rule 2: aiParams without agentId use the connected agent, however it was connected.
    run: ({ ctx, team, principal, agentId }, input) => createCampaign(ctx, team, principal, input, agentId),
  }),
  tool({
    name: 'preview_campaign_audience',
    title: 'Preview a campaign audience',
    description:
      'How many contacts would receive a campaign and how many are skipped, by reason (pending_consent, ' +
      'opted_out, missing_channel). Give campaignId, or channel with segmentId / tags / contactIds. Call it ' +
      'before send_campaign.',
    app: 'campaigns',
    access: 'read',
    input: audiencePreviewSchema,
    run: ({ ctx, team }, input) => previewCampaignAudience(ctx.db, team.id, input),
  }),
  sensitiveTool('svc-campaign-send', {
    name: 'send_campaign',
    title: 'Send a campaign',
    description: `Sends a Draft campaign (a WhatsApp one once its template is Approved) now, or at scheduledAt (ISO 8601, in the future; omitted: the campaign's own scheduledAt, if it is ahead). Answers the campaign (Sending or Scheduled); follow it with campaign_stats. ${PENDING_NOTE}`,
    app: 'campaigns',
  }),
  tool({
    name: 'list_campaigns',
    title: 'List campaigns',
    description:
      'The team\'s campaigns with their status and counts, newest first; archived ones with archived "true".',
    app: 'campaigns',
    access: 'read',
    input: campaignListQuerySchema,
    chargeInRead: true,
    run: ({ ctx, team, rider }, query) => listCampaigns(ctx.db, team.id, query, rider),
  }),
  tool({
    name: 'campaign_stats',
    title: 'Campaign stats',
    description:
      "A campaign's status and counts: recipients, sent, skipped (by reason), failed (by error), opened, clicked.",
    app: 'campaigns',
    access: 'read',
    input: z.strictObject({ campaignId: id('campaign') }),
    run: ({ ctx, team }, { campaignId }) => campaignStats(ctx.db, team.id, campaignId),
  }),
  sensitiveTool('svc-campaign-delete', {
    name: 'delete_campaign',
    title: 'Delete a campaign',
    description: `Deletes a campaign that is not Sending (a Scheduled one is unscheduled). ${PENDING_NOTE}`,
    app: 'campaigns',
  }),
];
