/**
 * The contract of `webhook-delivery-<deliveryId>`: one event to one endpoint, attempted on the
 * retry schedule below until the receiver answers 2xx (docs/EVENTS.md). A delivery whose first
 * attempt, made in its batch (`webhook-batch-<id>`), failed gets one, started by the batch at
 * attempt 2; the worker's webhook activities implement the attempt.
 */

export const webhookDeliveryWorkflowName = 'webhookDeliveryWorkflow';

export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

/**
 * The wait before attempts 2‥10, seconds: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 6 h
 * (about 13 h 42 min from the first attempt to the last).
 */
export const WEBHOOK_RETRY_DELAYS_SECONDS = [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 21_600] as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_SECONDS.length + 1;

/**
 * A team's retry settings (the Webhooks integration): attempts in all, and the waits before
 * attempts 2, 3, …; a list shorter than the attempts repeats its last wait.
 */
export interface WebhookRetryPolicy {
  maxAttempts: number;
  retryDelaysSeconds: number[];
}

/** Today's schedule, for a team that set none (a function: a module-level object would be shared state in the workflow bundle). */
export const defaultWebhookRetryPolicy = (): WebhookRetryPolicy => ({
  maxAttempts: WEBHOOK_MAX_ATTEMPTS,
  retryDelaysSeconds: [...WEBHOOK_RETRY_DELAYS_SECONDS],
});

/** The wait before `attempt` (2-based) under a policy. */
export const retryDelaySeconds = (policy: WebhookRetryPolicy, attempt: number): number =>
  policy.retryDelaysSeconds[Math.min(attempt - 2, policy.retryDelaysSeconds.length - 1)];

export interface WebhookDeliveryInput {
  deliveryId: string;
  /** The attempt to start at, after the wait before it (a batch made attempt 1); absent: 1. */
  firstAttempt?: number;
  /** The team's settings when the delivery started (kept for its whole life); absent: the defaults. */
  retry?: WebhookRetryPolicy;
}

export interface WebhookAttemptInput {
  deliveryId: string;
  /** 1-based; the attempt row's key, so a repeated activity overwrites rather than adds. */
  attempt: number;
  /** The wait before the next attempt; null: this is the last one. */
  nextDelaySeconds: number | null;
}

/** delivered: a 2xx; retry: anything else; gone: the endpoint was deleted or disabled (nothing more to do). */
export interface WebhookAttemptResult {
  outcome: 'delivered' | 'retry' | 'gone';
  statusCode: number | null;
}

export interface WebhookDeliveryResult {
  status: 'delivered' | 'failed' | 'gone';
  attempts: number;
}

export interface WebhookActivities {
  attemptWebhookDelivery(input: WebhookAttemptInput): Promise<WebhookAttemptResult>;
}
