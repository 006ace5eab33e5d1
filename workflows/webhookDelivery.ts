import { ActivityFailure, proxyActivities, sleep } from '@temporalio/workflow';
import {
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_SECONDS,
  WebhookActivities,
  WebhookDeliveryInput,
  WebhookDeliveryResult,
} from './contracts/webhookDelivery';

const { attemptWebhookDelivery } = proxyActivities<WebhookActivities>({
  // The POST is cut at 10 s; a worker that died mid-attempt is noticed after 30 s.
  startToCloseTimeout: '30 seconds',
  // Only our own trouble (the database) is retried here; the receiver's is the schedule below.
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/**
 * One event to one endpoint: an attempt, then durable timers on the retry schedule until the
 * receiver answers 2xx or the attempts run out. Every attempt carries the same `webhook-id`.
 * Started at a later attempt (its batch made the first), it waits that attempt's delay first.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const firstAttempt = input.firstAttempt ?? 1;
  if (firstAttempt > 1) await sleep(WEBHOOK_RETRY_DELAYS_SECONDS[firstAttempt - 2] * 1000);
  for (let attempt = firstAttempt; attempt <= WEBHOOK_MAX_ATTEMPTS; attempt++) {
    const nextDelaySeconds = attempt < WEBHOOK_MAX_ATTEMPTS ? WEBHOOK_RETRY_DELAYS_SECONDS[attempt - 1] : null;
    try {
      const result = await attemptWebhookDelivery({ deliveryId: input.deliveryId, attempt, nextDelaySeconds });
      if (result.outcome === 'delivered') return { status: 'delivered', attempts: attempt };
      if (result.outcome === 'gone') return { status: 'gone', attempts: attempt };
    } catch (err) {
      // Our side failed three times (the database away): the attempt counts, the schedule goes on.
      if (!(err instanceof ActivityFailure)) throw err;
    }
    if (nextDelaySeconds !== null) await sleep(nextDelaySeconds * 1000);
  }
  return { status: 'failed', attempts: WEBHOOK_MAX_ATTEMPTS };
}
