import { Context } from '@temporalio/activity';
import { privateWebhookUrlsAllowed } from '../../config';
import type { Db } from '../../db/knex';
import type { AppContext } from '../platform/context';
import type { SecretBox } from '../platform/secretBox';
import { sendBatch } from './batch';
import { attemptDelivery } from './send';
import type { WebhookBatchActivities } from '../../workflows/contracts/webhookBatch';
import type { WebhookActivities } from '../../workflows/contracts/webhookDelivery';

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

/** A batch stops taking deliveries after this long (a slow receiver); the workflow calls it again for the rest. */
const BATCH_TIME_BUDGET_MS = 60_000;

/** The batch activity, on the worker's webhook task queue (workflows/contracts/webhookBatch.ts). */
export function createWebhookBatchActivities(deps: WebhookActivityDeps): WebhookBatchActivities {
  const allowPrivate = privateWebhookUrlsAllowed(deps.appContext.config);
  return {
    sendWebhookBatch: ({ batchId }) => {
      const context = Context.current();
      const stopTakingAt = Date.now() + BATCH_TIME_BUDGET_MS;
      return sendBatch({ db: deps.db, secretBox: deps.secretBox, allowPrivate }, batchId, {
        progress: (recorded) => context.heartbeat({ recorded }),
        // Out of time, or Temporal gave this attempt up (its retry may already be sending).
        stopTaking: () => Date.now() > stopTakingAt || context.cancellationSignal.aborted,
      });
    },
  };
}
