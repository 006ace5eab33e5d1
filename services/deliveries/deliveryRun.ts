import type { Db } from '../../db/knex';
import type {
  DeliveryDraft,
  DeliveryInput,
  DeliveryJson,
  DeliveryOutcome,
  DeliveryResult,
} from '../../workflows/contracts/delivery';
import { recordEvent } from '../events/outbox';
import { signedMediaUrl } from '../media/media';
import { errorBody } from '../platform/errors';
import type { SecretBox } from '../platform/secretBox';
import { deliveryRows } from './deliveryRecords';
import { updateExecution } from './warpExecutions';

/**
 * The reads and writes of a delivery (`delivery-<executionId>`, its activities in ./activities.ts):
 * the draft a person approves, the proof a recipient was reached, and the end.
 */

/** The message before approval: the sender's text and a block listing every deliverable with its links. */
export async function draftDelivery(
  db: Db,
  links: { secretBox: SecretBox; baseUrl: string; fileLinkTtlSeconds: number },
  input: DeliveryInput,
): Promise<DeliveryDraft> {
  const artifacts = await db('artifacts').where({ team_id: input.teamId }).whereIn('id', input.artifactIds);
  const files = await db('artifact_media')
    .join('media', 'media.id', 'artifact_media.media_id')
    .whereIn('artifact_media.artifact_id', input.artifactIds)
    .orderBy('artifact_media.position')
    .select('artifact_media.artifact_id', 'media.id', 'media.filename');
  const ordered = input.artifactIds.map((id) => artifacts.find((a) => a.id === id)).filter(Boolean);
  const block = ordered
    .map((artifact) => {
      const lines = [`• ${artifact.title}${artifact.url ? `: ${artifact.url}` : ''}`];
      if (artifact.password) lines.push(`  Password: ${artifact.password}`);
      if (artifact.extra_link) lines.push(`  More: ${artifact.extra_link}`);
      for (const file of files.filter((f) => f.artifact_id === artifact.id)) {
        lines.push(
          `  ${file.filename}: ${signedMediaUrl(links.baseUrl, links.secretBox, file.id, links.fileLinkTtlSeconds)}`,
        );
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
  return { subject, message: input.message, links: block };
}

/** The recipient's `sent` record, if there is one: the proof a retried or replayed attempt sends nothing. */
export async function sentDelivery(
  db: Db,
  executionId: string,
  contactId: string,
): Promise<DeliveryOutcome | undefined> {
  const done = await db('deliveries')
    .where({ execution_id: executionId, contact_id: contactId, status: 'sent' })
    .first('id');
  return done && { contactId, status: 'sent', deliveryId: done.id };
}

/** The provider of the agent's integration on the channel (null: none), as a failure record names it. */
export async function integrationProvider(db: Db, agentId: string, channel: string): Promise<string | null> {
  const integration = await db('agent_integrations').where({ agent_id: agentId, channel }).first('provider');
  return integration?.provider ?? null;
}

/** Artifacts that reached anyone are `sent`; the execution ends succeeded (all sent) or failed. */
export async function completeDelivery(
  db: Db,
  input: DeliveryInput,
  outcomes: DeliveryOutcome[],
): Promise<DeliveryResult> {
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
}
