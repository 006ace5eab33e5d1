import type { Knex } from 'knex';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import type { ErrorBody } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, Page } from '../platform/pagination';
import type { DeliveryInput, DeliveryJson, DeliveryOutcome } from './deliveryTypes';
import { recordOutboundMessage } from './outboundMessages';

/** The delivery record (`dlv_…`): one per execution and recipient, what went out or why not; written, read and listed. */
interface DeliveryRow {
  seq: number;
  id: string;
  execution_id: string;
  contact_id: string;
  artifact_ids: string[];
  integration: string;
  provider: string;
  to_address: string;
  subject: string | null;
  message: string;
  status: 'sent' | 'failed';
  provider_message_id: string | null;
  error: ErrorBody | null;
  sent_at: Date | null;
  created_at: Date;
}

function presentDelivery(row: DeliveryRow & { seq?: number }): DeliveryJson {
  return {
    id: row.id,
    executionId: row.execution_id,
    contactId: row.contact_id,
    artifactIds: row.artifact_ids,
    integration: row.integration,
    provider: row.provider,
    to: row.to_address,
    subject: row.subject,
    message: row.message,
    status: row.status,
    providerMessageId: row.provider_message_id,
    error: row.error,
    sentAt: row.sent_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

/** The key of a delivery's provider call: one message per execution and recipient, whatever retries. */
export const deliveryIdempotencyKey = (executionId: string, contactId: string) => `${executionId}:${contactId}`;

/**
 * One recipient's delivery record: what went out (or why not). Written once per execution and
 * recipient; a `sent` record is never overwritten. When a provider was asked (`provider` set),
 * its outbound message is written in the same transaction.
 */
export async function recordDelivery(
  db: Db,
  d: DeliveryInput & {
    recipient: { contactId: string; address: string };
    subject?: string;
    body: string;
    provider: string | null;
    result: { status: 'sent'; providerMessageId: string } | { status: 'failed'; error: ErrorBody };
  },
): Promise<DeliveryOutcome> {
  const values = {
    status: d.result.status,
    provider: d.provider ?? 'none',
    provider_message_id: d.result.status === 'sent' ? d.result.providerMessageId : null,
    error: d.result.status === 'failed' ? JSON.stringify(d.result.error) : null,
    sent_at: d.result.status === 'sent' ? db.fn.now() : null,
    subject: d.subject ?? null,
    message: d.body,
  };
  return db.transaction(async (trx) => {
    const [row] = await trx('deliveries')
      .insert({
        id: newId('dlv'),
        team_id: d.teamId,
        execution_id: d.executionId,
        contact_id: d.recipient.contactId,
        artifact_ids: d.artifactIds,
        integration: d.channel,
        to_address: d.recipient.address,
        ...values,
      })
      .onConflict(['execution_id', 'contact_id'])
      .merge(values)
      .where('deliveries.status', '<>', 'sent')
      .returning(['id', 'status']);
    if (row) {
      if (d.provider !== null) {
        await recordOutboundMessage(trx, {
          teamId: d.teamId,
          agentId: d.agentId,
          channel: d.channel,
          contactId: d.recipient.contactId,
          address: d.recipient.address,
          provider: d.provider,
          idempotencyKey: deliveryIdempotencyKey(d.executionId, d.recipient.contactId),
          sourceKind: 'delivery',
          sourceId: d.executionId,
          result: d.result,
        });
      }
      return { contactId: d.recipient.contactId, status: row.status, deliveryId: row.id };
    }
    const existing = await trx('deliveries')
      .where({ execution_id: d.executionId, contact_id: d.recipient.contactId })
      .first('id', 'status');
    return { contactId: d.recipient.contactId, status: existing.status, deliveryId: existing.id };
  });
}

export async function deliveryRows(db: Db | Knex.Transaction, executionId: string): Promise<DeliveryJson[]> {
  return (await db('deliveries').where({ execution_id: executionId }).orderBy('seq')).map(presentDelivery);
}

export const deliveryListQuerySchema = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  executionId: z.string().max(100).optional(),
  contactId: z.string().max(100).optional(),
  artifactId: z.string().max(100).optional(),
});

export function listDeliveries(
  db: Db,
  teamId: string,
  query: z.infer<typeof deliveryListQuerySchema>,
): Promise<Page<DeliveryJson>> {
  const q = db('deliveries').where({ team_id: teamId });
  if (query.executionId) q.where({ execution_id: query.executionId });
  if (query.contactId) q.where({ contact_id: query.contactId });
  if (query.artifactId) q.whereRaw('? = ANY(artifact_ids)', [query.artifactId]);
  return keysetPage(q.select('*'), query, presentDelivery);
}
