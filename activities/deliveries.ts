import { ApplicationFailure } from '@temporalio/activity';
import { ProviderError } from '../channels/types';
import { recordEvent } from '../services/events/outbox';
import type { Db } from '../db/knex';
import { deliveryIdempotencyKey, deliveryRows, recordDelivery } from '../services/deliveries/deliveryRecords';
import { updateExecution } from '../services/deliveries/warpExecutions';
import { errorBody } from '../services/platform/errors';
import { integrationForSend } from '../services/agents/integrations';
import { signedMediaUrl } from '../services/media/media';
import type { SecretBox } from '../services/platform/secretBox';
import type {
  DeliveryActivities,
  DeliveryDraft,
  DeliveryInput,
  DeliveryJson,
  DeliveryOutcome,
  DeliveryResult,
  DeliverySendInput,
} from '../workflows/contracts/delivery';
import type { ExecutionStatus } from '../workflows/contracts/execution';

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
    /** The message before approval: the sender's text and a block listing every deliverable with its links. */
    async draftDelivery(input: DeliveryInput): Promise<DeliveryDraft> {
      const artifacts = await db('artifacts').where({ team_id: input.teamId }).whereIn('id', input.artifactIds);
      const files = await db('artifact_media')
        .join('media', 'media.id', 'artifact_media.media_id')
        .whereIn('artifact_media.artifact_id', input.artifactIds)
        .orderBy('artifact_media.position')
        .select('artifact_media.artifact_id', 'media.id', 'media.filename');
      const ordered = input.artifactIds.map((id) => artifacts.find((a) => a.id === id)).filter(Boolean);
      const links = ordered
        .map((artifact) => {
          const lines = [`• ${artifact.title}${artifact.url ? `: ${artifact.url}` : ''}`];
          if (artifact.password) lines.push(`  Password: ${artifact.password}`);
          if (artifact.extra_link) lines.push(`  More: ${artifact.extra_link}`);
          for (const file of files.filter((f) => f.artifact_id === artifact.id)) {
            lines.push(`  ${file.filename}: ${signedMediaUrl(baseUrl, secretBox, file.id, fileLinkTtlSeconds)}`);
          }
          return lines.join('\n');
        })
        .join('\n');
      const subject =
        input.subject ??
        (input.channel === 'email'
          ? ordered.length === 1
            ? ordered[0].title
            : `${ordered.length} documents for you`
          : undefined);
      return { subject, message: input.message, links };
    },

    /**
     * Sends one recipient's message, once. A record that says `sent` is the proof: a retried or
     * replayed attempt finds it and sends nothing. Between the provider's answer and that record
     * a crash can fall; the retry then carries the same idempotency key, so the provider drops
     * the repeat.
     */
    async sendDeliveryMessage(input: DeliverySendInput): Promise<DeliveryOutcome> {
      const done = await db('deliveries')
        .where({ execution_id: input.executionId, contact_id: input.recipient.contactId, status: 'sent' })
        .first('id');
      if (done) return { contactId: input.recipient.contactId, status: 'sent', deliveryId: done.id };
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
      const done = await db('deliveries')
        .where({ execution_id: input.executionId, contact_id: input.recipient.contactId, status: 'sent' })
        .first('id');
      if (done) return { contactId: input.recipient.contactId, status: 'sent', deliveryId: done.id };
      const integration = await db('agent_integrations')
        .where({ agent_id: input.agentId, channel: input.channel })
        .first('provider');
      return recordDelivery(db, {
        ...input,
        provider: integration?.provider ?? null,
        result: { status: 'failed', error: errorBody('provider_unavailable', input.reason) },
      });
    },

    async recordExecution(
      executionId: string,
      patch: { status: ExecutionStatus; draft?: DeliveryDraft; error?: unknown },
    ): Promise<void> {
      await updateExecution(db, executionId, patch);
    },

    /** Artifacts that reached anyone are `sent`; the execution ends succeeded (all sent) or failed. */
    async completeDelivery(input: DeliveryInput, outcomes: DeliveryOutcome[]): Promise<DeliveryResult> {
      const anySent = outcomes.some((o) => o.status === 'sent');
      const status = outcomes.every((o) => o.status === 'sent') ? 'succeeded' : 'failed';
      return db.transaction(async (trx) => {
        const deliveries: DeliveryJson[] = await deliveryRows(trx, input.executionId);
        if (anySent) {
          const sent: { id: string; title: string; type: string }[] = await trx('artifacts')
            .where({ team_id: input.teamId })
            .whereIn('id', input.artifactIds)
            .whereIn('status', ['ready', 'sent'])
            .update({ status: 'sent', delivered_at: trx.fn.now(), updated_at: trx.fn.now() })
            .returning(['id', 'title', 'type']);
          // One artifact.sent per artifact and delivery, in the same commit (docs/EVENTS.md); the
          // key makes a repeated activity record nothing twice.
          for (const artifact of sent)
            await recordEvent(trx, {
              teamId: input.teamId,
              type: 'artifact.sent',
              subject: artifact.id,
              dedupeKey: `artifact.sent:${input.executionId}:${artifact.id}`,
              data: {
                artifact,
                executionId: input.executionId,
                deliveries: deliveries
                  .filter((d) => d.status === 'sent')
                  .map((d) => ({ id: d.id, contactId: d.contactId, integration: d.integration, to: d.to })),
              },
            });
        }
        await updateExecution(trx, input.executionId, {
          status,
          result: { deliveries },
          error:
            status === 'failed'
              ? errorBody(
                  'delivery_failed',
                  `${outcomes.filter((o) => o.status === 'failed').length} of ${outcomes.length} messages failed`,
                )
              : undefined,
        });
        return { status, deliveries };
      });
    },
  } satisfies DeliveryActivities;
}
