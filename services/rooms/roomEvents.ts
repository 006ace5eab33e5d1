import type { Knex } from 'knex';
import { z } from 'zod';
import { preparedOnce, type Db } from '../../db/knex';

/**
 * A room's event log: what its stream carries, in a gapless per-room order. A sequence is
 * allocated under the room row's lock (the same statement that inserts the event), and the
 * statement tells readers with NOTIFY, delivered when the write commits. The table is the truth:
 * a reconnect with `Last-Event-ID` gets exactly what it missed, from any API process. A
 * notification carries its event when it fits, so a stream that has sent everything before it
 * sends it without reading the table; one that does not fit only wakes readers.
 */
export const roomEventTypes = [
  'message.created',
  'message.delta',
  /** A retried model call: drop the partial text of `messageId` received so far. */
  'message.reset',
  'message.completed',
  'tool.call',
  'tool.result',
  'approval.requested',
  'approval.decided',
  'turn.completed',
  'turn.failed',
] as const;
export const roomEventTypeSchema = z.enum(roomEventTypes);
export type RoomEventType = z.infer<typeof roomEventTypeSchema>;

export interface NewRoomEvent {
  type: RoomEventType;
  data: Record<string, unknown>;
}

export interface RoomEvent extends NewRoomEvent {
  seq: number;
  createdAt: Date;
}

/**
 * The channel every API process LISTENs on. The payload is the event, `{"room", "seq", "type",
 * "data", "createdAt"}`, or only the room id when the event does not fit in a notification
 * (Postgres takes up to 8000 bytes; writers before this format sent the room id alone).
 */
export const ROOM_EVENTS_CHANNEL = 'room_events';
/** Below Postgres's 8000 bytes for a payload. */
const NOTIFY_PAYLOAD_LIMIT = 7_900;

/** A notification: its room, and its event when the event came with it. */
export function roomEventNotification(payload: string): { roomId: string; event?: RoomEvent } | undefined {
  if (!payload.startsWith('{')) return { roomId: payload };
  try {
    const told = JSON.parse(payload) as {
      room: string;
      seq: number;
      type: RoomEventType;
      data: RoomEvent['data'];
      createdAt: string;
    };
    return {
      roomId: told.room,
      event: { seq: told.seq, type: told.type, data: told.data, createdAt: new Date(told.createdAt) },
    };
  } catch {
    return undefined;
  }
}

/**
 * Appends events to a room's log in one statement and answers their sequences. Inside a
 * transaction the events commit with the change they describe (and the room row stays locked
 * until then: append last, after any slow work).
 */
export async function appendRoomEvents(
  db: Db | Knex.Transaction,
  roomId: string,
  events: NewRoomEvent[],
): Promise<number[]> {
  if (events.length === 0) return [];
  // One text, whatever the events (they travel as one JSON binding): prepared once per connection.
  const { rows } = await preparedOnce(
    db.raw<{ rows: { seq: number }[] }>(
      `WITH room AS (
       UPDATE rooms SET last_event_seq = last_event_seq + ?, last_activity_at = now() WHERE id = ?
       RETURNING last_event_seq - ? AS before
     ), inserted AS (
       INSERT INTO room_events (room_id, seq, type, data)
       SELECT ?, room.before + e.ord, e.value->>'type', e.value->'data'
       FROM room, jsonb_array_elements(?::jsonb) WITH ORDINALITY AS e(value, ord)
       RETURNING seq, type, data, created_at
     ), told AS (
       SELECT seq, json_build_object('room', ?::text, 'seq', seq, 'type', type, 'data', data, 'createdAt', created_at)::text AS event
       FROM inserted ORDER BY seq
     )
     SELECT seq, pg_notify(?, CASE WHEN octet_length(event) < ? THEN event ELSE ? END) FROM told ORDER BY seq`,
      [
        events.length,
        roomId,
        events.length,
        roomId,
        JSON.stringify(events),
        roomId,
        ROOM_EVENTS_CHANNEL,
        NOTIFY_PAYLOAD_LIMIT,
        roomId,
      ],
    ),
  );
  return rows.map((r) => r.seq);
}

/** Events after `afterSeq`, oldest first: what a stream sends next. */
export async function eventsSince(db: Db, roomId: string, afterSeq: number, limit = 500): Promise<RoomEvent[]> {
  // Every stream reads it on every notification: prepared once per connection.
  const rows: { seq: number; type: RoomEventType; data: Record<string, unknown>; created_at: Date }[] =
    await preparedOnce(
      db('room_events')
        .where('room_id', roomId)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(limit)
        .select('seq', 'type', 'data', 'created_at'),
    );
  return rows.map((r) => ({ seq: r.seq, type: r.type, data: r.data, createdAt: r.created_at }));
}
