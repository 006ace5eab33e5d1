import { createHmac } from 'node:crypto';
import express, { Router } from 'express';
import { z } from 'zod';
import { templateStatusChanged } from '../../services/campaigns';
import { sameSecret } from '../../services/secrets';
import type { AppContext } from '../../services/context';
import { recordEmailEvent, verifySvixSignature } from '../../services/emailEvents';
import { AppError } from '../../services/errors';

/** A signed webhook body as JSON; a body that is not JSON is the sender's error, not ours. */
function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError(400, 'validation_error', 'The webhook body is not JSON');
  }
}

/** Provider webhooks: email open and click events (signature verified, replay-safe). */
export function webhooksRouter(ctx: AppContext): Router {
  const router = Router();
  router.post('/webhooks/email/:provider', express.raw({ type: '*/*', limit: '256kb' }), async (req, res) => {
    const provider = String(req.params.provider);
    const secret = ctx.config.EMAIL_WEBHOOK_SECRETS[provider];
    if (!secret) throw new AppError(404, 'not_found', `No webhook is configured for provider ${provider}`);
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const eventId = verifySvixSignature(secret, req.headers, body);
    res.json(await recordEmailEvent(ctx.db, provider, eventId, jsonOf(body)));
  });
  /** Meta's WhatsApp webhook: template status updates, signed with the app secret (X-Hub-Signature-256). */
  router.post('/webhooks/whatsapp', express.raw({ type: '*/*', limit: '256kb' }), async (req, res) => {
    const secret = ctx.config.WHATSAPP_APP_SECRET;
    if (!secret) throw new AppError(404, 'not_found', 'The WhatsApp webhook is not configured (WHATSAPP_APP_SECRET)');
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const given = req.headers['x-hub-signature-256'];
    if (typeof given !== 'string' || !sameSecret(given, expected)) throw new AppError(401, 'invalid_signature', 'The webhook signature does not match');
    const parsed = whatsappWebhookSchema.safeParse(jsonOf(body));
    if (!parsed.success) throw new AppError(400, 'validation_error', 'Not a WhatsApp webhook payload');
    let applied = 0;
    for (const entry of parsed.data.entry) {
      for (const change of entry.changes) {
        if (change.field !== 'message_template_status_update') continue;
        if (await templateStatusChanged(ctx, String(change.value.message_template_id), change.value.event, change.value.reason ?? undefined)) applied++;
      }
    }
    res.json({ applied });
  });

  return router;
}

const whatsappWebhookSchema = z.object({
  entry: z.array(z.object({
    changes: z.array(z.object({
      field: z.string(),
      value: z.object({ event: z.string(), message_template_id: z.union([z.string(), z.number()]), reason: z.string().nullable().optional() }).loose(),
    }).loose()),
  }).loose()),
}).loose();
