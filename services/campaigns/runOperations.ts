import { archiveCampaign } from './archive';
import { cancelSchedule, cancelSend } from './cancel';
import { cardDecisionSchema, cardsDecidedSchema, cardSchema, decideCards, listCards } from './cards';
import { recipientQuerySchema } from './recipients';
import { campaignRetrySchema, retriedSchema, retryCampaign } from './retry';
import { campaignSchema } from './schemas';
import { campaignSendSchema, sendCampaign } from './send';
import { campaignTestSendSchema, testSendCampaign, testSentSchema } from './testSend';
import { refreshWhatsapp, submitWhatsapp } from './whatsappTemplate';
import { campaignParams } from './campaignParams';
import { defineOperation, PENDING_NOTE } from '../platform/operation';
import { pageSchema } from '../platform/pagination';

const tag = 'Campaigns';

/** A campaign's run: sending, cancelling, retrying, archiving, test sends, its WhatsApp template and approval cards. */
export const campaignRunOperations = [
  defineOperation({
    name: 'campaigns.send',
    access: { level: 'write', app: 'campaigns', sensitive: 'svc-campaign-send' },
    output: campaignSchema,
    handler: (ctx, { team }, { campaignId, ...input }) => sendCampaign(ctx, team, campaignId, input),
    http: {
      method: 'post',
      path: '/campaigns/{campaignId}/send',
      tag,
      summary: 'Send now, or at a future scheduledAt (Scheduled)',
      status: 200,
      answer: 'The campaign, Sending or Scheduled',
      params: campaignParams,
      body: { schema: campaignSendSchema, optional: true },
      errors: [409, 422, 503],
    },
    mcp: {
      name: 'send_campaign',
      title: 'Send a campaign',
      description: `Sends a Draft campaign (a WhatsApp one once its template is Approved) now, or at scheduledAt (ISO 8601, in the future; omitted: the campaign's own scheduledAt, if it is ahead). Answers the campaign (Sending or Scheduled); follow it with campaign_stats. ${PENDING_NOTE}`,
    },
  }),
  defineOperation({
    name: 'campaigns.cancelSchedule',
    access: { level: 'write', app: 'campaigns' },
    output: campaignSchema,
    handler: (ctx, { team }, { campaignId }) => cancelSchedule(ctx, team.id, campaignId),
    http: {
      method: 'post',
      path: '/campaigns/{campaignId}/cancel-schedule',
      tag,
      summary: 'Back to Draft, only while Scheduled',
      status: 200,
      answer: 'The campaign',
      params: campaignParams,
      errors: [409, 503],
    },
  }),
  defineOperation({
    name: 'campaigns.cancelSend',
    access: { level: 'write', app: 'campaigns' },
    output: campaignSchema,
    handler: (ctx, { team }, { campaignId }) => cancelSend(ctx, team.id, campaignId),
    http: {
      method: 'post',
      path: '/campaigns/{campaignId}/cancel-send',
      tag,
      summary: 'Stop sending, only while Sending: the rest fail with cancelled, the campaign ends Failed',
      status: 200,
      answer: 'The campaign',
      params: campaignParams,
      errors: [409, 503],
    },
  }),
  defineOperation({
    name: 'campaigns.retry',
    access: { level: 'write', app: 'campaigns' },
    output: retriedSchema,
    handler: (ctx, { team }, { campaignId, ...input }) => retryCampaign(ctx, team, campaignId, input),
    http: {
      method: 'post',
      path: '/campaigns/{campaignId}/retry',
      tag,
      summary: 'Send again to the retryable recipients (optionally only contactIds), only Completed or Failed',
      status: 200,
      answer: '{ retried }: how many are sent again',
      params: campaignParams,
      body: { schema: campaignRetrySchema, optional: true },
      errors: [409, 503],
    },
  }),
  defineOperation({
    name: 'campaigns.archive',
    access: { level: 'write', app: 'campaigns' },
    output: campaignSchema,
    handler: (ctx, { team }, { campaignId }) => archiveCampaign(ctx.db, team.id, campaignId, true),
    http: {
      method: 'post',
      path: '/campaigns/{campaignId}/archive',
      tag,
      summary: 'Archive a Completed or Failed campaign',
      status: 200,
      answer: 'The campaign',
      params: campaignParams,
      errors: [409],
    },
  }),
  defineOperation({
    name: 'campaigns.unarchive',
    access: { level: 'write', app: 'campaigns' },
    output: campaignSchema,
    handler: (ctx, { team }, { campaignId }) => archiveCampaign(ctx.db, team.id, campaignId, false),
    http: {
      method: 'post',
      path: '/campaigns/{campaignId}/unarchive',
      tag,
      summary: 'Unarchive',
      status: 200,
      answer: 'The campaign',
      params: campaignParams,
      errors: [409],
    },
  }),
  defineOperation({
    name: 'campaigns.sendTest',
    access: { level: 'write', app: 'campaigns' },
    output: testSentSchema,
    handler: (ctx, { team }, { campaignId, ...input }) => testSendCampaign(ctx, team.id, campaignId, input),
    http: {
      method: 'post',
      path: '/campaigns/{campaignId}/send-test',
      tag,
      summary: 'Synchronous test send to one contact with an email ([TEST] subject; nothing changes)',
      status: 200,
      answer: 'What was sent',
      params: campaignParams,
      body: { schema: campaignTestSendSchema },
      errors: [422, 502],
    },
  }),
  defineOperation({
    name: 'campaigns.submitWhatsappTemplate',
    access: { level: 'write', app: 'campaigns' },
    output: campaignSchema,
    handler: (ctx, { team }, { campaignId }) => submitWhatsapp(ctx, team, campaignId),
    http: {
      method: 'post',
      path: '/campaigns/{campaignId}/whatsapp/submit',
      tag,
      summary: 'Submit the WhatsApp template for approval (Draft or Rejected → Pending)',
      status: 200,
      answer: 'The campaign',
      params: campaignParams,
      errors: [409, 422, 503],
    },
  }),
  defineOperation({
    name: 'campaigns.refreshWhatsappTemplate',
    access: { level: 'write', app: 'campaigns' },
    output: campaignSchema,
    handler: (ctx, { team }, { campaignId }) => refreshWhatsapp(ctx, team.id, campaignId),
    http: {
      method: 'post',
      path: '/campaigns/{campaignId}/whatsapp/refresh',
      tag,
      summary: 'Ask the provider for the template status now (Pending only)',
      status: 200,
      answer: 'The campaign',
      params: campaignParams,
      errors: [409, 422],
    },
  }),
  defineOperation({
    name: 'campaigns.cards',
    access: { level: 'read', app: 'campaigns' },
    output: pageSchema(cardSchema),
    handler: (ctx, { team }, { campaignId, ...query }) => listCards(ctx.db, team.id, campaignId, query),
    http: {
      method: 'get',
      path: '/campaigns/{campaignId}/cards',
      tag,
      summary: 'Open approval cards (a manual-mode agent sends nobody until a card is approved)',
      status: 200,
      answer: 'A page of open cards',
      params: campaignParams,
      query: recipientQuerySchema,
    },
  }),
  defineOperation({
    name: 'campaigns.decideCards',
    access: { level: 'write', app: 'campaigns' },
    output: cardsDecidedSchema,
    handler: (ctx, { team }, { campaignId, ...input }) => decideCards(ctx, team.id, campaignId, input),
    http: {
      method: 'post',
      path: '/campaigns/{campaignId}/cards',
      tag,
      summary: 'Approve or skip approval cards (contact ids or "all"); skipped ones end approval_skipped',
      status: 200,
      answer: 'How many were approved and skipped',
      params: campaignParams,
      body: { schema: cardDecisionSchema },
      errors: [409],
    },
  }),
];
