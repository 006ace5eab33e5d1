import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { AppError } from '../platform/errors';
import { sameSecret } from '../identity/secrets';

const TOLERANCE_SECONDS = 300;

/**
 * Verifies a Svix-style signature (what Resend sends): `svix-id`, `svix-timestamp` within five
 * minutes, and `svix-signature` holding one or more `v1,<base64 HMAC-SHA256 of id.timestamp.body>`
 * made with the secret's bytes (base64 after `whsec_`).
 */
export function verifySvixSignature(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  now = Date.now(),
): string {
  const id = headers['svix-id'];
  const timestamp = headers['svix-timestamp'];
  const signatures = headers['svix-signature'];
  if (
    typeof id !== 'string' ||
    typeof timestamp !== 'string' ||
    typeof signatures !== 'string' ||
    !/^\d+$/.test(timestamp)
  ) {
    throw new AppError('invalid_signature', 'svix-id, svix-timestamp and svix-signature are required');
  }
  if (Math.abs(now / 1000 - Number(timestamp)) > TOLERANCE_SECONDS)
    throw new AppError('invalid_signature', 'The webhook timestamp is outside the five-minute tolerance');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
  const ok = signatures.split(' ').some((part) => part.startsWith('v1,') && sameSecret(part.slice(3), expected));
  if (!ok) throw new AppError('invalid_signature', 'The webhook signature does not match');
  return id;
}

export const emailEventSchema = z
  .object({
    type: z.string(),
    created_at: z.string().optional(),
    data: z.object({ email_id: z.string().min(1) }).loose(),
  })
  .loose();

/**
 * An open or click of an email we sent, found by the provider's message id among the outbound
 * messages: the message's `opened_at` / `clicked_at` is set the first time. When it belongs to
 * a campaign recipient, the recipient's is set too and the campaign's count grows once per
 * recipient. Replays (same event id) and events for mail we did not send change nothing.
 */
export async function recordEmailEvent(
  db: Db,
  provider: string,
  eventId: string,
  raw: unknown,
): Promise<{ applied: boolean }> {
  const parsed = emailEventSchema.safeParse(raw);
  if (!parsed.success)
    throw new AppError('validation_error', 'Not an email event', {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  const column =
    parsed.data.type === 'email.opened' ? 'opened_at' : parsed.data.type === 'email.clicked' ? 'clicked_at' : null;
  return db.transaction(async (trx) => {
    const [fresh] = await trx('webhook_events')
      .insert({ provider, event_id: eventId })
      .onConflict(['provider', 'event_id'])
      .ignore()
      .returning('event_id');
    if (!fresh || !column) return { applied: false };
    const [message] = await trx('outbound_messages')
      .where({ provider, provider_message_id: parsed.data.data.email_id })
      .whereNull(column)
      .update({ [column]: trx.fn.now() })
      .returning(['source_kind', 'source_id', 'contact_id']);
    if (!message) return { applied: false };
    if (message.source_kind === 'campaign') {
      const [recipient] = await trx('campaign_recipients')
        .where({ campaign_id: message.source_id, contact_id: message.contact_id })
        .whereNull(column)
        .update({ [column]: trx.fn.now() })
        .returning('campaign_id');
      if (recipient)
        await trx('campaigns')
          .where({ id: recipient.campaign_id })
          .increment(column === 'opened_at' ? 'opened_count' : 'clicked_count', 1);
    }
    return { applied: true };
  });
}
