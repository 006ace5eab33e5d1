import type { WorkflowStart } from './start';
import type { WebhookRetryPolicy } from './webhookDelivery';

/**
 * The contract of `webhook-batch-<batchId>`: the first attempt of up to WEBHOOK_BATCH_SIZE
 * deliveries in one activity, POSTed with bounded concurrency and recorded in bulk; each delivery
 * whose first attempt failed goes on in its own `webhook-delivery-<id>` from attempt 2
 * (docs/EVENTS.md › Delivery in batches). The dispatcher starts it; the worker's webhook task
 * queue (`webhookTaskQueue`) runs its activity.
 */

export const webhookBatchWorkflowName = 'webhookBatchWorkflow';

export const webhookBatchWorkflowId = (batchId: string) => `webhook-batch-${batchId}`;

/** How many deliveries the dispatcher puts in one batch. */
export const WEBHOOK_BATCH_SIZE = 500;

/**
 * The task queue of the batch activity, beside the worker's own: its own slots, so a burst of
 * webhooks (or a slow receiver) never holds the slots turns, campaigns and jobs need.
 */
export const webhookTaskQueue = (taskQueue: string) => `${taskQueue}-webhooks`;

export interface WebhookBatchInput {
  batchId: string;
}

export interface WebhookBatchSent {
  /** First attempts of the batch not yet made (the activity's time ran out): call it again. */
  remaining: number;
  /** The batch's deliveries whose first attempt failed, to go on the retry schedule. */
  retrying: string[];
  /** Deliveries of `retrying` whose team has retry settings, with them; absent or unnamed: the defaults. */
  retryPolicies?: { policy: WebhookRetryPolicy; deliveryIds: string[] }[];
}

export interface WebhookBatchResult {
  /** Deliveries handed to their own workflow at attempt 2. */
  retrying: number;
}

export type WebhookBatchWorkflow = (input: WebhookBatchInput) => Promise<WebhookBatchResult>;

export const webhookBatchStart = {
  name: webhookBatchWorkflowName,
  id: (input) => webhookBatchWorkflowId(input.batchId),
  searchAttributes: (input) => ({ JobType: 'webhook.batch', BusinessId: input.batchId }),
  // Refused also after the batch ended: a batch runs once.
  idReusePolicy: 'REJECT_DUPLICATE',
} as const satisfies WorkflowStart<WebhookBatchWorkflow>;

export interface WebhookBatchActivities {
  sendWebhookBatch(input: WebhookBatchInput): Promise<WebhookBatchSent>;
}
