import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { z } from 'zod';

/**
 * Platform events (docs/EVENTS.md): what happened in a team, written to the outbox table
 * `platform_events` in the same transaction as the change it reports, then dispatched to the
 * team's webhook endpoints by services/events/dispatcher.ts.
 */

/** Every event type the platform emits. A feature that adds events adds its type here. */
export const EVENT_TYPES = [
  'contact.created',
  'contact.updated',
  'campaign.completed',
  'artifact.sent',
  'agent.message',
  'user.message',
  'agent.action',
  'email.received',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const eventTypeSchema = z.enum(EVENT_TYPES);

export interface NewEvent {
  teamId: string;
  type: EventType;
  /** The id of what the event is about (a contact, a campaign, an artifact). */
  subject?: string;
  /** The event's payload: the `data` field of the webhook body. */
  data: Record<string, unknown>;
  /**
   * For a write that may run twice (an activity retried after its commit): one event per key and
   * team, the second write records nothing.
   */
  dedupeKey?: string;
}

/** An event id: `evt_` and random, or derived from the dedupe key (the same key, the same id). */
function eventId(event: NewEvent): string {
  if (!event.dedupeKey) return `evt_${randomBytes(16).toString('hex')}`;
  const digest = createHash('sha256').update(`${event.teamId}\n${event.dedupeKey}`).digest('hex');
  return `evt_${digest.slice(0, 32)}`;
}

/**
 * Records an event inside the caller's transaction: it exists exactly when the change it reports
 * was committed. Returns the event id (also when a dedupe key had already recorded it).
 */
export async function recordEvent(trx: Knex.Transaction | Knex, event: NewEvent): Promise<string> {
  const [id] = await recordEvents(trx, [event]);
  return id;
}

/**
 * `recordEvent` for many events in one statement (a bulk write such as an import batch reports
 * each of its changes without a round trip per row). Returns the ids in the events' order.
 */
export async function recordEvents(trx: Knex.Transaction | Knex, events: NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({
    id: eventId(event),
    team_id: event.teamId,
    type: eventTypeSchema.parse(event.type),
    subject: event.subject ?? null,
    data: JSON.stringify(event.data),
    dedupe_key: event.dedupeKey ?? null,
  }));
  await trx('platform_events').insert(rows).onConflict('id').ignore();
  return rows.map((row) => row.id);
}
