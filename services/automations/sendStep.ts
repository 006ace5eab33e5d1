import { ProviderError } from '../../channels/types';
import { integrationForSend } from '../agents/integrations';
import { textGeneratorFor } from '../campaigns/content';
import { RENDER_COLUMNS, renderCampaignMessage, type CampaignContentColumns } from '../campaigns/renderMessage';
import { addressOf, skipReasonSql } from '../contacts/channelAddress';
import { unsubscribeUrl } from '../contacts/unsubscribe';
import { providerErrorBody, recordOutboundMessage } from '../deliveries/outboundMessages';
import type { AppContext } from '../platform/context';
import { errorBody, type ErrorBody } from '../platform/errors';
import type { Step } from './schemas';

type SendStep = Extract<Step, { type: 'send' }>;

/** A send step's message as the campaign renderer reads a campaign's. */
export const sendStepContent = (s: SendStep): CampaignContentColumns => ({
  channel: s.channel,
  subject: s.subject ?? null,
  content: s.content,
  content_html: s.contentHtml ?? null,
  template_params: s.templateParams,
  ai_params: s.aiParams,
});

export type SendOutcome =
  | { status: 'sent'; detail: { messageId: string | null; providerMessageId: string; to: string } }
  | { status: 'skipped'; detail: { reason: string } }
  | { status: 'failed'; detail: ErrorBody };

/**
 * A journey's send step (docs/AUTOMATIONS.md › send): the campaign rules for the contact (opted
 * out, consent not granted or no address on the channel: skipped), the campaign placeholder
 * rendering and unsubscribe footer, one provider call through the automation agent's
 * integration keyed `automation:<enrollmentId>:<step>`: a retried activity finds the message
 * already sent, and the provider drops a repeat of the key.
 */
export async function sendStep(
  ctx: AppContext,
  at: { teamId: string; agentId: string; enrollmentId: string; step: number; contactId: string },
  s: SendStep,
): Promise<SendOutcome> {
  const { db } = ctx;
  const key = `automation:${at.enrollmentId}:${at.step}`;
  const done = await db('outbound_messages')
    .where({ team_id: at.teamId, idempotency_key: key, status: 'sent' })
    .first('id', 'provider_message_id', 'address');
  if (done)
    return {
      status: 'sent',
      detail: { messageId: done.id, providerMessageId: done.provider_message_id, to: done.address },
    };
  const contact = await db('contacts')
    .where({ team_id: at.teamId, id: at.contactId })
    .first('id', ...RENDER_COLUMNS, 'properties', db.raw(`${skipReasonSql(s.channel)} AS skip_now`));
  if (!contact) return { status: 'skipped', detail: { reason: 'contact_gone' } };
  if (contact.skip_now) return { status: 'skipped', detail: { reason: contact.skip_now } };
  const integration = await integrationForSend(db, ctx.secretBox, at.teamId, at.agentId, s.channel);
  if (!integration)
    return {
      status: 'failed',
      detail: errorBody('integration_inactive', `The automation agent has no active ${s.channel} integration`),
    };
  const to = addressOf(s.channel, contact)!;
  const message = await renderCampaignMessage(
    sendStepContent(s),
    contact,
    textGeneratorFor(ctx.config),
    unsubscribeUrl(ctx.config.baseUrl, ctx.secretBox, contact.id),
  );
  const record = (result: Parameters<typeof recordOutboundMessage>[1]['result']) =>
    recordOutboundMessage(db, {
      teamId: at.teamId,
      agentId: at.agentId,
      channel: s.channel,
      contactId: contact.id,
      address: to,
      provider: integration.provider,
      idempotencyKey: key,
      sourceKind: 'automation',
      sourceId: at.enrollmentId,
      result,
    });
  try {
    const sent = await integration.adapter.send({
      channel: s.channel,
      to,
      from: integration.from,
      ...message,
      idempotencyKey: key,
    });
    const messageId = await record({ status: 'sent', providerMessageId: sent.providerMessageId });
    return { status: 'sent', detail: { messageId, providerMessageId: sent.providerMessageId, to } };
  } catch (err) {
    // A provider that is away is retried by the activity (the same key); a refusal is the step's outcome.
    if (!(err instanceof ProviderError) || err.retryable) throw err;
    const error = providerErrorBody(err);
    await record({ status: 'failed', error });
    return { status: 'failed', detail: error };
  }
}
