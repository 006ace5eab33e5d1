import { z } from 'zod';
import { audiencePreviewSchema, previewCampaignAudience } from './audiencePreview';
import { createCampaign } from './create';
import { listCampaigns } from './list';
import { campaignCreateSchema, campaignListQuerySchema } from './schemas';
import { campaignStats } from './stats';
import { sendContactSchema, startCampaignContactSend } from './campaignContact';
import { sensitiveWarp, warp, Warp, warpId } from '../warps/warpKit';

/** The campaign warps (spec, MCP-behaviour rule 6): the campaign tools' rules, by name, and the send to one contact. */
export const campaignWarps: Warp[] = [
  warp({
    name: 'svc-campaign-create',
    description: 'Creates a Draft campaign (placeholders mapped in templateParams / aiParams); answers the campaign.',
    input: campaignCreateSchema,
    approval: 'none',
    run: async ({ ctx, team, principal, agent }, input) => ({
      campaign: await createCampaign(ctx, team, principal, input, agent.id),
    }),
  }),
  warp({
    name: 'svc-campaign-audience-preview',
    description:
      'Sendable versus skipped counts (with reasons) for campaignId, or channel with segmentId / tags / contactIds.',
    input: audiencePreviewSchema,
    approval: 'none',
    run: async ({ ctx, team }, input) => ({ ...(await previewCampaignAudience(ctx.db, team.id, input)) }),
  }),
  sensitiveWarp(
    'svc-campaign-send',
    'Sends a Draft campaign now or at scheduledAt (waits for approval in manual mode).',
  ),
  warp({
    name: 'svc-campaign-list',
    description: "The team's campaigns with status and counts, newest first.",
    input: campaignListQuerySchema,
    approval: 'none',
    run: async ({ ctx, team }, query) => ({ ...(await listCampaigns(ctx.db, team.id, query)) }),
  }),
  warp({
    name: 'svc-campaign-stats',
    description: "A campaign's status and counts.",
    input: z.strictObject({ campaignId: warpId }),
    approval: 'none',
    run: async ({ ctx, team }, { campaignId }) => ({ ...(await campaignStats(ctx.db, team.id, campaignId)) }),
  }),
  sensitiveWarp('svc-campaign-delete', 'Deletes a campaign that is not Sending (waits for approval in manual mode).'),
  warp({
    name: 'svc-campaign-send-contact',
    description:
      "Sends an existing email campaign's message to one contact (by email), optionally after a delay such as " +
      '"2h" or "1d" (a durable timer in workflow campaign-contact-<executionId>; waits for approval in manual mode).',
    input: sendContactSchema,
    approval: 'own-workflow',
    run: (call, input) => startCampaignContactSend(call, input),
  }),
];
