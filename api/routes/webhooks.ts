import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { templateStatusChanged } from '../../services/campaigns/whatsappTemplate';
import { sameSecret } from '../../services/identity/secrets';
import type { AppContext } from '../../services/platform/context';
import { emailEventSchema, recordEmailEvent, verifySvixSignature } from '../../services/campaigns/emailEvents';
import { AppError } from '../../services/platform/errors';
import { defineRoute, json, Route } from '../routeTable';

/** A signed webhook body as JSON; a body that is not JSON is the sender's error, not ours. */
function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError('validation_error', 'The webhook body is not JSON');
  }
}

const whatsappWebhookSchema = z
  .object({
    entry: z.array(
      z
        .object({
          changes: z.array(
            z
              .object({
                field: z.string(),
                value: z
                  .object({
                    event: z.string(),
                    message_template_id: z.union([z.string(), z.number()]),
                    reason: z.string().nullable().optional(),
                  })
                  .loose(),
              })
              .loose(),
          ),
        })
        .loose(),
    ),
  })
  .loose();

/** Provider webhooks: email open and click events, WhatsApp template status (signature verified, replay-safe). */
export function webhooksRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/webhooks/email/{provider}',
      tag: 'Webhooks',
      access: 'public',
      summary: "An email provider's open and click events (Svix-signed: svix-id, svix-timestamp, svix-signature)",
      description:
        "No credential: the signature over the raw body is checked with the provider's " +
        '`EMAIL_WEBHOOK_SECRETS` entry. An unconfigured provider is 404.',
      params: z.object({ provider: z.string() }),
      body: { kind: 'raw', schema: emailEventSchema, contentType: 'application/json', limit: '256kb' },
      responses: {
        200: json(z.object({ applied: z.boolean() }), 'Whether the event changed anything (a replayed event does not)'),
      },
      errors: [401, 404],
      handler: async ({ req, params, body }) => {
        const secret = ctx.config.EMAIL_WEBHOOK_SECRETS[params.provider];
        if (!secret) throw new AppError('not_found', `No webhook is configured for provider ${params.provider}`);
        const eventId = verifySvixSignature(secret, req.headers, body);
        return { status: 200, body: await recordEmailEvent(ctx.db, params.provider, eventId, jsonOf(body)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/whatsapp',
      tag: 'Webhooks',
      access: 'public',
      summary: "Meta's WhatsApp webhook: template status updates, signed with the app secret (X-Hub-Signature-256)",
      description:
        'No credential: the signature over the raw body is checked with `WHATSAPP_APP_SECRET`; without it ' +
        'configured the route is 404.',
      body: { kind: 'raw', schema: whatsappWebhookSchema, contentType: 'application/json', limit: '256kb' },
      responses: {
        200: json(z.object({ applied: z.number().int() }), 'How many template status changes were applied'),
      },
      errors: [401, 404],
      handler: async ({ req, body }) => {
        const secret = ctx.config.WHATSAPP_APP_SECRET;
        if (!secret) throw new AppError('not_found', 'The WhatsApp webhook is not configured (WHATSAPP_APP_SECRET)');
        const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
        const given = req.headers['x-hub-signature-256'];
        if (typeof given !== 'string' || !sameSecret(given, expected))
          throw new AppError('invalid_signature', 'The webhook signature does not match');
        const parsed = whatsappWebhookSchema.safeParse(jsonOf(body));
        if (!parsed.success) throw new AppError('validation_error', 'Not a WhatsApp webhook payload');
        let applied = 0;
        for (const entry of parsed.data.entry) {
          for (const change of entry.changes) {
            if (change.field !== 'message_template_status_update') continue;
            if (
              await templateStatusChanged(
                ctx,
                String(change.value.message_template_id),
                change.value.event,
                change.value.reason ?? undefined,
              )
            )
              applied++;
          }
        }
        return { status: 200, body: { applied } };
      },
    }),
  ];
}
