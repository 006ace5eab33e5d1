import { ApplicationFailure, Context } from '@temporalio/activity';
import { ProviderError } from '../../channels/types';
import type { Db } from '../../db/knex';
import type {
  DeliveryActivities,
  DeliveryDraft,
  DeliveryInput,
  DeliveryOutcome,
  DeliverySendInput,
} from '../../workflows/contracts/delivery';
import type { ExecutionStatus } from '../../workflows/contracts/execution';
import type { WarpActivities } from '../../workflows/contracts/warpExecution';
import { integrationForSend } from '../agents/integrations';
import type { AppContext } from '../platform/context';
import { errorBody } from '../platform/errors';
import type { SecretBox } from '../platform/secretBox';
import { deliveryIdempotencyKey, recordDelivery } from './deliveryRecords';
import { completeDelivery, draftDelivery, integrationProvider, sentDelivery } from './deliveryRun';
import { updateExecution } from './warpExecutions';
import { runApprovedWrite } from './warps';

/**
 * The activities of a delivery (`delivery-<executionId>`, ./deliveryRun.ts) and of a sensitive
 * write waiting for a person (`warp-<executionId>`, ./warps.ts): provider errors become Temporal's
 * failures here, the reads and writes are in the services.
 */

export interface DeliveryActivityDeps {
  db: Db;
  secretBox: SecretBox;
  /** {base_url}, for the file links in messages. */
  baseUrl: string;
  /** How long a file link in a message keeps working. */
  fileLinkTtlSeconds: number;
}

export function createDeliveryActivities({ db, secretBox, baseUrl, fileLinkTtlSeconds }: DeliveryActivityDeps) {
  return {
    draftDelivery: (input: DeliveryInput): Promise<DeliveryDraft> =>
      draftDelivery(db, { secretBox, baseUrl, fileLinkTtlSeconds }, input),

    /**
     * Sends one recipient's message, once. A record that says `sent` is the proof: a retried or
     * replayed attempt finds it and sends nothing. Between the provider's answer and that record
     * a crash can fall; the retry then carries the same idempotency key, so the provider drops
     * the repeat.
     */
    async sendDeliveryMessage(input: DeliverySendInput): Promise<DeliveryOutcome> {
      const done = await sentDelivery(db, input.executionId, input.recipient.contactId);
      if (done) return done;
      const integration = await integrationForSend(db, secretBox, input.teamId, input.agentId, input.channel);
      const record = (fields: Parameters<typeof recordDelivery>[1]['result']) =>
        recordDelivery(db, { ...input, provider: integration?.provider ?? null, result: fields });
      if (!integration) {
        return record({
          status: 'failed',
          error: errorBody('integration_inactive', `The agent has no active ${input.channel} integration`),
        });
      }
      try {
        const sent = await integration.adapter.send({
          channel: input.channel,
          to: input.recipient.address,
          from: integration.from,
          subject: input.subject,
          text: input.body,
          idempotencyKey: deliveryIdempotencyKey(input.executionId, input.recipient.contactId),
        });
        return record({ status: 'sent', providerMessageId: sent.providerMessageId });
      } catch (err) {
        if (err instanceof ProviderError && !err.retryable) {
          return record({
            status: 'failed',
            error: errorBody('provider_rejected', err.message, { providerStatus: err.status ?? null }),
          });
        }
        throw ApplicationFailure.retryable((err as Error).message, 'ProviderUnavailable');
      }
    },

    /** The recipient whose retries ran out: the record says why. */
    async recordSendFailure(input: DeliverySendInput & { reason: string }): Promise<DeliveryOutcome> {
      const done = await sentDelivery(db, input.executionId, input.recipient.contactId);
      if (done) return done;
      return recordDelivery(db, {
        ...input,
        provider: await integrationProvider(db, input.agentId, input.channel),
        result: { status: 'failed', error: errorBody('provider_unavailable', input.reason) },
      });
    },

    async recordExecution(
      executionId: string,
      patch: { status: ExecutionStatus; draft?: DeliveryDraft; error?: unknown },
    ): Promise<void> {
      await updateExecution(db, executionId, patch);
    },

    completeDelivery: (input: DeliveryInput, outcomes: DeliveryOutcome[]) => completeDelivery(db, input, outcomes),
  } satisfies DeliveryActivities;
}

export interface WarpActivityDeps {
  /** Approved writes run the same service functions the API does. */
  appContext: AppContext;
}

export function createWarpActivities({ appContext }: WarpActivityDeps) {
  return {
    async runApprovedWrite(executionId: string) {
      return runApprovedWrite(appContext, executionId, Context.current().info.attempt);
    },
  } satisfies WarpActivities;
}
