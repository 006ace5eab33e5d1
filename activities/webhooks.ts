import { privateWebhookUrlsAllowed } from '../config';
import type { Db } from '../db/knex';
import type { AppContext } from '../services/platform/context';
import type { SecretBox } from '../services/platform/secretBox';
import { attemptDelivery } from '../services/webhooks/send';
import type { WebhookActivities } from '../workflows/contracts/webhookDelivery';

export interface WebhookActivityDeps {
  db: Db;
  secretBox: SecretBox;
  appContext: AppContext;
}

/** The outbound webhook activities: one signed POST per call, recorded (services/webhooks/send.ts). */
export function createWebhookActivities(deps: WebhookActivityDeps): WebhookActivities {
  const allowPrivate = privateWebhookUrlsAllowed(deps.appContext.config);
  return {
    attemptWebhookDelivery: (input) => attemptDelivery({ db: deps.db, secretBox: deps.secretBox, allowPrivate }, input),
  };
}
