import { ParentClosePolicy, patched, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from './contracts/searchAttributeKeys';
import {
  webhookTaskQueue,
  type WebhookBatchActivities,
  type WebhookBatchInput,
  type WebhookBatchResult,
} from './contracts/webhookBatch';
import {
  webhookDeliveryWorkflowId,
  webhookDeliveryWorkflowName,
  type WebhookDeliveryInput,
} from './contracts/webhookDelivery';

/** From this patch on, a delivery's own workflow carries its batch's team (a batch holds one team's deliveries). */
export const DELIVERIES_CARRY_THEIR_TEAM = 'webhook-deliveries-carry-their-team';

/**
 * The first attempt of a batch of deliveries (docs/EVENTS.md › Delivery in batches): one activity
 * POSTs them all and records each; it is called again while its time budget left some unsent.
 * Each delivery whose first attempt failed then gets its own `webhook-delivery-<id>` at attempt 2,
 * abandoned (it outlives the batch by hours), started once: the batch's history holds the starts.
 */
export async function webhookBatchWorkflow(input: WebhookBatchInput): Promise<WebhookBatchResult> {
  const { sendWebhookBatch } = proxyActivities<WebhookBatchActivities>({
    taskQueue: webhookTaskQueue(workflowInfo().taskQueue),
    startToCloseTimeout: '10 minutes',
    // A worker that died mid-batch is noticed within 10 s; the retry sends only what was not recorded.
    heartbeatTimeout: '10 seconds',
    // Only our side fails an activity (the database away): retried until it is back.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  let sent = await sendWebhookBatch(input);
  while (sent.remaining > 0) sent = await sendWebhookBatch(input);
  // A team's retry settings go in the child's start args (the same commands: only the args differ).
  const policyOf = new Map(
    (sent.retryPolicies ?? []).flatMap(({ policy, deliveryIds }) => deliveryIds.map((id) => [id, policy] as const)),
  );
  const teamSlug = workflowInfo().typedSearchAttributes.get(TeamSlugKey);
  const carryTeam = sent.retrying.length > 0 && teamSlug !== undefined && patched(DELIVERIES_CARRY_THEIR_TEAM);
  await Promise.allSettled(
    sent.retrying.map((deliveryId) =>
      startChild(webhookDeliveryWorkflowName, {
        workflowId: webhookDeliveryWorkflowId(deliveryId),
        args: [{ deliveryId, firstAttempt: 2, retry: policyOf.get(deliveryId) } satisfies WebhookDeliveryInput],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        ...(carryTeam
          ? {
              typedSearchAttributes: [
                { key: TeamSlugKey, value: teamSlug },
                { key: JobTypeKey, value: 'webhook.delivery' },
                { key: BusinessIdKey, value: deliveryId },
              ],
            }
          : {}),
      }),
    ),
  );
  return { retrying: sent.retrying.length };
}
