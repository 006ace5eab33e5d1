import { z } from 'zod';
import { getWebhookSettings, updateWebhookSettings, webhookSettingsUpdateSchema } from '../services/webhooks/settings';
import { tool, Tool } from './toolKit';

/** The Webhooks app (docs/EVENTS.md › Retry settings): its settings, the same service functions as /v1/webhooks/settings. */
export const webhookTools: Tool[] = [
  tool({
    name: 'get_webhook_settings',
    title: 'Get the webhook retry settings',
    description:
      "The team's outbound webhook retry settings: maxAttempts (attempts in all) and retryDelaysSeconds (the waits " +
      'before attempts 2, 3, …; the last repeats). custom false: nothing saved, the defaults (10 attempts, 5 s … 6 h).',
    app: 'webhooks',
    access: 'read',
    input: z.strictObject({}),
    run: ({ ctx, team }) => getWebhookSettings(ctx.db, team.id),
  }),
  tool({
    name: 'set_webhook_settings',
    title: 'Change the webhook retry settings',
    description:
      'Set maxAttempts (1-25, the first attempt included; 1: no retry) and/or retryDelaysSeconds (1-24 waits of ' +
      '1-86400 s before attempts 2, 3, …; the last repeats). A field left out keeps its value. Deliveries that ' +
      'start from now on follow them; those already retrying keep their schedule. Answers the settings.',
    app: 'webhooks',
    access: 'write',
    input: webhookSettingsUpdateSchema,
    run: ({ ctx, team, principal }, input) => updateWebhookSettings(ctx.db, team.id, input, principal.userId),
  }),
];
