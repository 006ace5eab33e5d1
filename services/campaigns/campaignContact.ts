import { z } from 'zod';
import { ProviderError } from '../../channels/types';
import {
  campaignContactStart,
  campaignContactWorkflowId,
  type CampaignContactArgs,
} from '../../workflows/contracts/campaignContact';
import type { ExecutionStatus } from '../../workflows/contracts/execution';
import { integrationForSend } from '../agents/integrations';
import { campaignAgent, findCampaign } from './campaignRow';
import { textGeneratorFor } from './content';
import { RENDER_COLUMNS, renderCampaignMessage } from './renderMessage';
import { skipReasonSql } from '../contacts/channelAddress';
import { unsubscribeUrl } from '../contacts/unsubscribe';
import { providerErrorBody, sendOneEmail } from '../deliveries/outboundMessages';
import {
  claimExecution,
  dedupeKey,
  executionUrl,
  failUnstartedExecution,
  updateExecution,
} from '../deliveries/warpExecutions';
import type { AppContext, TeamRef } from '../platform/context';
import { AppError, ruleBroken } from '../platform/errors';
import { newId } from '../../db/ids';
import { durationMs, durationSchema } from '../warps/duration';
import { warpId, type WarpCall } from '../warps/warpKit';

export const sendContactSchema = z.strictObject({
  campaignId: warpId.describe('An existing email campaign'),
  email: z.email().max(320).describe("The contact's email address (a contact of the team)"),
  delay: durationSchema.optional().describe('Send after this long, e.g. "2h" or "1d" (a durable timer)'),
});
export type SendContactInput = z.infer<typeof sendContactSchema>;

export { campaignContactWorkflowId };
/** The per-recipient key of the campaign send, with this execution as the attempt: a retried send never sends twice. */
const idempotencyKeyOf = (campaignId: string, contactId: string, executionId: string) =>
  `${campaignId}:${contactId}:contact-${executionId}`;

/** What is checked (again) before the send: the contact, its consent, the campaign's email integration. */
async function sendable(ctx: AppContext, teamId: string, campaignId: string, where: { email?: string; id?: string }) {
  const campaign = await findCampaign(ctx.db, teamId, campaignId);
  if (campaign.channel !== 'email')
    throw ruleBroken('send_contact_requires_email', 'Only an email campaign can be sent to one contact by email', {
      channel: campaign.channel,
    });
  const q = ctx.db('contacts').where({ team_id: teamId });
  if (where.id) q.where({ id: where.id });
  else q.whereRaw('lower(email) = lower(?)', [where.email!]);
  const contact = await q
    .orderBy('seq')
    .first('id', ...RENDER_COLUMNS, ctx.db.raw(`${skipReasonSql('email')} AS skip_now`));
  if (!contact)
    throw ruleBroken('unknown_contact', 'No contact of this team has that email address', { email: where.email });
  if (contact.skip_now)
    throw ruleBroken('contact_not_sendable', `The contact cannot be sent this campaign (${contact.skip_now})`, {
      contactId: contact.id,
      reason: contact.skip_now,
    });
  const agentId = await campaignAgent(ctx.db, campaign);
  const integration = await integrationForSend(ctx.db, ctx.secretBox, teamId, agentId, 'email');
  if (!integration)
    throw ruleBroken('integration_inactive', 'The campaign agent has no active email integration', { agentId });
  return { campaign, contact, agentId, integration };
}

/**
 * `svc-campaign-send-contact`: checks the send, opens its execution and starts
 * `campaign-contact-<executionId>` (approval in manual mode, the delay, the send).
 */
export async function startCampaignContactSend(call: WarpCall, input: SendContactInput, team: TeamRef = call.team) {
  const { ctx, agent } = call;
  const { contact } = await sendable(ctx, team.id, input.campaignId, { email: input.email });
  const manual = agent.mode === 'manual';
  const stored = { ...input, contactId: contact.id };
  const claimed = await claimExecution(
    ctx.db,
    {
      id: call.executionId ?? newId('wx'),
      team_id: team.id,
      agent_id: agent.id,
      warp: 'svc-campaign-send-contact',
      status: manual ? 'pending_approval' : 'running',
      input: JSON.stringify(stored),
      created_by: call.principal.userId,
      dedupe_key: dedupeKey(agent.id, 'svc-campaign-send-contact', stored),
      approval_expires_at: manual
        ? ctx.db.raw(`now() + make_interval(secs => ?)`, [ctx.config.APPROVAL_TTL_SECONDS])
        : null,
    },
    campaignContactWorkflowId,
    call.executionId !== undefined,
  );
  const args: CampaignContactArgs = {
    executionId: claimed.id,
    waitsForApproval: manual,
    approvalTimeoutMs: ctx.config.APPROVAL_TTL_SECONDS * 1000,
    delayMs: input.delay ? durationMs(input.delay) : 0,
  };
  const statusUrl = executionUrl(ctx.config.baseUrl, claimed.id);
  await ctx.temporal.startTracked(
    campaignContactStart,
    args,
    {
      team,
      staticSummary: `svc-campaign-send-contact ${claimed.id} for team ${team.slug}: campaign ${input.campaignId} to ${contact.id}${input.delay ? ` after ${input.delay}` : ''}`,
      staticDetails: `Warp execution **${claimed.id}**. Status: GET ${statusUrl}`,
    },
    {
      onFailure: async ({ neverReached }) => neverReached && failUnstartedExecution(ctx.db, claimed),
      details: { executionId: claimed.id },
    },
  );
  const status = claimed.status;
  return {
    ...(status === 'pending_approval'
      ? {
          pending: true,
          message:
            'Waiting for a person to approve the send. Poll check_warp_executions with this executionId; do not repeat the call.',
        }
      : {}),
    executionId: claimed.id,
    status,
    contactId: contact.id,
    delay: input.delay ?? null,
    statusUrl,
  };
}

/** The activity: renders the campaign for the contact and sends it once; records the outcome on the execution. */
export async function sendCampaignToContact(ctx: AppContext, executionId: string): Promise<ExecutionStatus> {
  const row = await ctx.db('warp_executions').where({ id: executionId }).first();
  if (!row || row.status !== 'running') return row?.status ?? 'failed';
  const input = row.input as SendContactInput & { contactId: string };
  let checked: Awaited<ReturnType<typeof sendable>>;
  try {
    checked = await sendable(ctx, row.team_id, input.campaignId, { id: input.contactId });
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    await updateExecution(ctx.db, executionId, { status: 'failed', error: err.toBody() });
    return 'failed';
  }
  const { campaign, contact, agentId, integration } = checked;
  const idempotencyKey = idempotencyKeyOf(campaign.id, contact.id, executionId);
  const done = await ctx
    .db('outbound_messages')
    .where({ team_id: row.team_id, idempotency_key: idempotencyKey, status: 'sent' })
    .first('provider_message_id');
  const succeed = (providerMessageId: string) =>
    updateExecution(ctx.db, executionId, {
      status: 'succeeded',
      result: { sent: true, campaignId: campaign.id, contactId: contact.id, to: contact.email, providerMessageId },
    }).then(() => 'succeeded' as const);
  if (done) return succeed(done.provider_message_id);

  const message = await renderCampaignMessage(
    campaign,
    contact,
    textGeneratorFor(ctx.config),
    unsubscribeUrl(ctx.config.baseUrl, ctx.secretBox, contact.id),
  );
  try {
    const providerMessageId = await sendOneEmail(
      ctx.db,
      {
        teamId: row.team_id,
        agentId,
        contactId: contact.id,
        address: contact.email,
        integration,
        idempotencyKey,
        sourceKind: 'campaign',
        sourceId: campaign.id,
        content: message,
      },
      { retriedLater: true },
    );
    return succeed(providerMessageId);
  } catch (err) {
    if (!(err instanceof ProviderError) || err.retryable) throw err;
    await updateExecution(ctx.db, executionId, { status: 'failed', error: providerErrorBody(err) });
    return 'failed';
  }
}
