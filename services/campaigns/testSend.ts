import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ProviderError } from '../../channels/types';
import type { AppContext } from '../platform/context';
import { AppError, ruleBroken } from '../platform/errors';
import { integrationForSend } from '../agents/integrations';
import { unsubscribeUrl } from '../contacts/unsubscribe';
import { sendOneEmail } from '../deliveries/outboundMessages';
import { campaignAgent, findCampaign } from './campaignRow';
import { textGeneratorFor } from './content';
import { RENDER_COLUMNS, renderCampaignMessage } from './renderMessage';

export const campaignTestSendSchema = z.strictObject({ contactId: z.string().min(1).max(100) });
export const testSentSchema = z.object({
  sent: z.boolean(),
  to: z.string(),
  subject: z.string().nullable(),
  providerMessageId: z.string().nullable(),
});

/**
 * Test send: the real subject and body for one contact, subject prefixed `[TEST]`, through the
 * campaign's agent, synchronously. Nothing of the campaign changes (no status, counts or recipients).
 */
export async function testSendCampaign(
  ctx: AppContext,
  teamId: string,
  campaignId: string,
  input: z.infer<typeof campaignTestSendSchema>,
) {
  const { db } = ctx;
  const row = await findCampaign(db, teamId, campaignId);
  if (row.channel !== 'email')
    throw ruleBroken('test_send_requires_email', 'Test sends are for email campaigns only', { channel: row.channel });
  const contact = await db('contacts')
    .where({ team_id: teamId, id: input.contactId })
    .first(...RENDER_COLUMNS);
  if (!contact?.email)
    throw ruleBroken('test_send_requires_email', 'The test recipient must be a contact with an email address', {
      contactId: input.contactId,
    });
  const agentId = await campaignAgent(db, row);
  const integration = await integrationForSend(db, ctx.secretBox, teamId, agentId, 'email');
  if (!integration)
    throw ruleBroken('integration_inactive', 'The campaign agent has no active email integration', { agentId });
  const message = await renderCampaignMessage(
    row,
    contact,
    textGeneratorFor(ctx.config),
    unsubscribeUrl(ctx.config.baseUrl, ctx.secretBox, input.contactId),
  );
  const subject = `[TEST] ${message.subject ?? ''}`.trimEnd();
  const idempotencyKey = `test:${campaignId}:${input.contactId}:${randomUUID()}`;
  try {
    const providerMessageId = await sendOneEmail(db, {
      teamId,
      agentId,
      contactId: input.contactId,
      address: contact.email,
      integration,
      idempotencyKey,
      sourceKind: 'campaign_test',
      sourceId: campaignId,
      content: { ...message, subject },
    });
    return { sent: true, to: contact.email as string, subject, providerMessageId };
  } catch (err) {
    if (err instanceof ProviderError) {
      throw new AppError('provider_failed', `The email provider refused the test message: ${err.message}`, {
        retryable: err.retryable,
      });
    }
    throw err;
  }
}
