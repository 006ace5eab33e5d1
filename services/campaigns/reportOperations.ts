import { z } from 'zod';
import { campaignParams } from './campaignParams';
import { listRecipients, recipientQuerySchema, recipientSchema } from './recipients';
import { campaignStats, campaignStatsSchema } from './stats';
import { campaignTimeline, timelineSchema } from './timeline';
import { campaignTotals, campaignTotalsQuerySchema, campaignTotalsSchema } from './totals';
import { defineOperation, id } from '../platform/operation';
import { pageSchema } from '../platform/pagination';

const tag = 'Campaigns';

/** What a campaign did: its recipients, counts and timeline. */
export const campaignReportOperations = [
  defineOperation({
    name: 'campaigns.recipients',
    access: { level: 'read', app: 'campaigns' },
    output: pageSchema(recipientSchema),
    handler: (ctx, { team }, { campaignId, ...query }) => listRecipients(ctx.db, team.id, campaignId, query),
    http: {
      method: 'get',
      path: '/campaigns/{campaignId}/recipients',
      tag,
      summary: 'Recipients with status, skipReason and retryable (status filter, perPage)',
      status: 200,
      answer: 'A page of recipients',
      params: campaignParams,
      query: recipientQuerySchema,
    },
  }),
  defineOperation({
    name: 'campaigns.stats',
    access: { level: 'read', app: 'campaigns' },
    input: z.strictObject({ campaignId: id('campaign') }),
    output: campaignStatsSchema,
    handler: (ctx, { team }, { campaignId }) => campaignStats(ctx.db, team.id, campaignId),
    http: {
      method: 'get',
      path: '/campaigns/{campaignId}/stats',
      tag,
      summary: 'Live counts of a campaign',
      status: 200,
      answer: 'The counts',
      params: campaignParams,
    },
    mcp: {
      name: 'campaign_stats',
      title: 'Campaign stats',
      description:
        "A campaign's status and counts: recipients, sent, skipped (by reason), failed (by error), opened, clicked.",
    },
  }),
  defineOperation({
    name: 'campaigns.timeline',
    access: { level: 'read', app: 'campaigns' },
    output: timelineSchema,
    handler: (ctx, { team }, { campaignId }) => campaignTimeline(ctx.db, team.id, campaignId),
    http: {
      method: 'get',
      path: '/campaigns/{campaignId}/timeline',
      tag,
      summary: 'Messages sent, opened and clicked over time (buckets of 1 s to 1 day, at most 120 points)',
      status: 200,
      answer: 'The timeline',
      params: campaignParams,
    },
  }),
];

/** The spec's historical totals: every campaign of the team, archived ones included. */
export const campaignTotalsOperation = defineOperation({
  name: 'campaigns.totals',
  access: { level: 'read', app: 'campaigns' },
  input: campaignTotalsQuerySchema,
  output: campaignTotalsSchema,
  handler: (ctx, { team }, query) => campaignTotals(ctx.db, team.id, query),
  http: {
    method: 'get',
    path: '/campaigns/totals',
    tag,
    summary:
      'Historical totals: campaigns per status and their recipients, sent, skipped, failed, opened, clicked, archived included',
    status: 200,
    answer: 'The totals',
    query: campaignTotalsQuerySchema,
  },
  mcp: {
    name: 'campaign_totals',
    title: 'Campaign totals',
    description:
      "The team's historical campaign totals, archived campaigns included: how many campaigns (per status, and " +
      'how many archived) and their recipients, sent, skipped, failed, opened and clicked summed. channel narrows ' +
      'it to one channel. For one campaign use campaign_stats.',
  },
});
