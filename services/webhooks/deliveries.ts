import { z } from 'zod';
import type { Db } from '../../db/knex';
import { notFound } from '../platform/errors';
import { decodeCursor, keysetPage, Page, PageQuery, pageQuerySchema, toPage } from '../platform/pagination';
import { findEndpointRow } from './endpoints';

/** What an endpoint was sent: one delivery per event, each with its attempts (docs/EVENTS.md). */

export const webhookDeliverySchema = z.object({
  /** Also the `webhook-id` header: the same on every attempt, what a receiver deduplicates on. */
  id: z.string(),
  endpointId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.iso.datetime().nullable(),
  deliveredAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
});
export type WebhookDeliveryJson = z.infer<typeof webhookDeliverySchema>;

export const webhookAttemptSchema = z.object({
  attempt: z.number().int(),
  /** The receiver's HTTP status; null when no answer came (refused connection, timeout, refused URL). */
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int(),
  createdAt: z.iso.datetime(),
});
export type WebhookAttemptJson = z.infer<typeof webhookAttemptSchema>;

export const deliveryListQuerySchema = pageQuerySchema.extend({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  eventType: z.string().max(100).optional(),
});

interface DeliveryRow {
  seq: number;
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function presentDelivery(row: DeliveryRow): WebhookDeliveryJson {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: iso(row.next_attempt_at),
    deliveredAt: iso(row.delivered_at),
    createdAt: row.created_at.toISOString(),
  };
}

/** An endpoint's deliveries, newest first. */
export async function listWebhookDeliveries(
  db: Db,
  teamId: string,
  endpointId: string,
  query: z.infer<typeof deliveryListQuerySchema>,
): Promise<Page<WebhookDeliveryJson>> {
  await findEndpointRow(db, teamId, endpointId);
  const rows = db('webhook_deliveries').where({ team_id: teamId, endpoint_id: endpointId });
  if (query.status) rows.where({ status: query.status });
  if (query.eventType) rows.where({ event_type: query.eventType });
  return keysetPage(rows, query, presentDelivery, { newestFirst: true });
}

/** Every attempt of one delivery, in order, a page at a time (the cursor resumes after an attempt number). */
export async function listWebhookAttempts(
  db: Db,
  teamId: string,
  endpointId: string,
  deliveryId: string,
  page: PageQuery,
): Promise<Page<WebhookAttemptJson>> {
  const delivery = await db('webhook_deliveries')
    .where({ team_id: teamId, endpoint_id: endpointId, id: deliveryId })
    .first('id');
  if (!delivery) throw notFound('Webhook delivery');
  const after = decodeCursor(page.cursor);
  const query = db('webhook_attempts').where({ delivery_id: deliveryId });
  if (after !== null) query.where('attempt', '>', after);
  const rows = await query.orderBy('attempt').limit(page.limit + 1);
  return toPage(
    rows.map((r) => ({ ...r, seq: r.attempt as number })),
    page.limit,
    (r) => ({
      attempt: r.attempt,
      statusCode: r.status_code,
      error: r.error,
      durationMs: r.duration_ms,
      createdAt: r.created_at.toISOString(),
    }),
  );
}
