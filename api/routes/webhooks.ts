import express, { Router } from 'express';
import type { AppContext } from '../../services/context';
import { recordEmailEvent, verifySvixSignature } from '../../services/emailEvents';
import { AppError } from '../../services/errors';

/** Provider webhooks: email open and click events (signature verified, replay-safe). */
export function webhooksRouter(ctx: AppContext): Router {
  const router = Router();
  router.post('/webhooks/email/:provider', express.raw({ type: '*/*', limit: '256kb' }), async (req, res) => {
    const provider = String(req.params.provider);
    const secret = ctx.config.EMAIL_WEBHOOK_SECRETS[provider];
    if (!secret) throw new AppError(404, 'not_found', `No webhook is configured for provider ${provider}`);
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const eventId = verifySvixSignature(secret, req.headers, body);
    let event: unknown;
    try {
      event = JSON.parse(body.toString('utf8'));
    } catch {
      throw new AppError(400, 'validation_error', 'The webhook body is not JSON');
    }
    res.json(await recordEmailEvent(ctx.db, provider, eventId, event));
  });
  return router;
}
