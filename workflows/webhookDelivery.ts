import { ActivityFailure, proxyActivities, sleep } from '@temporalio/workflow';
import {
  defaultWebhookRetryPolicy,
  retryDelaySeconds,
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
 * The schedule is the team's from the start args (absent in histories before it: the defaults,
 * the same commands), so a change of settings never alters a running delivery.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const policy = input.retry ?? defaultWebhookRetryPolicy();
  const firstAttempt = input.firstAttempt ?? 1;
  if (firstAttempt > 1) await sleep(retryDelaySeconds(policy, firstAttempt) * 1000);
  for (let attempt = firstAttempt; attempt <= policy.maxAttempts; attempt++) {
    const nextDelaySeconds = attempt < policy.maxAttempts ? retryDelaySeconds(policy, attempt + 1) : null;
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
  return { status: 'failed', attempts: policy.maxAttempts };
}
