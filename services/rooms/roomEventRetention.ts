import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Db } from '../../db/knex';

/**
 * Stream event retention (docs/AGENTS.md › Streams): a room's events older than its team's
 * `settings.rooms.eventRetentionHours` (default ROOM_EVENT_RETENTION_HOURS, never under 24, the
 * promise of DESIGN.md) are deleted, oldest first. Each statement deletes a prefix of one room's
 * log, at most `batch` rows found by its primary key, and commits on its own: writers append at
 * the other end of the log and never wait on it, and the events a room keeps stay gapless (a
 * stream tells a reader who asks for a purged event with a `gap` event).
 */
export const MIN_RETENTION_HOURS = 24;

export interface PurgeOptions {
  /** ROOM_EVENT_RETENTION_HOURS: for teams that set none. */
  defaultHours: number;
  /** Events a statement deletes at most. */
  batch?: number;
  /** Rooms read at a time while looking for old events. */
  roomsPerPage?: number;
  /** Asked between statements: a pass stops early when it answers true (shutdown). */
  stopped?: () => boolean;
}

interface DueRoom {
  seq: number;
  id: string;
  cutoff: Date;
  oldest: Date | null;
}

/** The next page of rooms after `afterSeq`, each with its cutoff and the time of its oldest kept event. */
async function roomsPage(db: Db, afterSeq: number, limit: number, defaultHours: number): Promise<DueRoom[]> {
  const { rows } = await db.raw<{ rows: DueRoom[] }>(
    `SELECT r.seq, r.id, c.cutoff,
            (SELECT e.created_at FROM room_events e WHERE e.room_id = r.id ORDER BY e.seq LIMIT 1) AS oldest
       FROM rooms r
       JOIN teams t ON t.id = r.team_id
       CROSS JOIN LATERAL (
         SELECT now() - make_interval(hours => GREATEST(?::int,
           COALESCE((t.settings->'rooms'->>'eventRetentionHours')::int, ?::int))) AS cutoff
       ) c
      WHERE r.seq > ?
      ORDER BY r.seq
      LIMIT ?`,
    [MIN_RETENTION_HOURS, defaultHours, afterSeq, limit],
  );
  return rows;
}

/**
 * Deletes the oldest events of one room created before `cutoff`, at most `batch`: the longest
 * run from the start of its log that is all older (an event's time and its sequence may disagree
 * by a transaction's length; the run stops at the first younger one). Answers how many.
 */
export async function purgeRoomBatch(
  db: Db | Knex.Transaction,
  roomId: string,
  cutoff: Date,
  batch: number,
): Promise<number> {
  const result = await db.raw<{ rowCount: number }>(
    `WITH head AS (
       SELECT seq, created_at FROM room_events WHERE room_id = ? ORDER BY seq LIMIT ?
     ), through AS (
       SELECT COALESCE((SELECT min(seq) - 1 FROM head WHERE created_at >= ?), (SELECT max(seq) FROM head)) AS seq
     )
     DELETE FROM room_events e USING through WHERE e.room_id = ? AND e.seq <= through.seq`,
    [roomId, batch, cutoff, roomId],
  );
  return result.rowCount ?? 0;
}

/** One pass over every room; answers the events deleted and the statements it took. */
export async function purgeRoomEvents(
  db: Db,
  { defaultHours, batch = 1000, roomsPerPage = 500, stopped = () => false }: PurgeOptions,
): Promise<{ deleted: number; statements: number }> {
  let deleted = 0;
  let statements = 0;
  let after = 0;
  for (;;) {
    const page = await roomsPage(db, after, roomsPerPage, Math.max(MIN_RETENTION_HOURS, defaultHours));
    for (const room of page) {
      if (!room.oldest || room.oldest >= room.cutoff) continue;
      for (;;) {
        if (stopped()) return { deleted, statements };
        const n = await purgeRoomBatch(db, room.id, room.cutoff, batch);
        deleted += n;
        statements++;
        if (n < batch) break;
      }
    }
    if (page.length < roomsPerPage) return { deleted, statements };
    after = Number(page[page.length - 1].seq);
  }
}

export interface RoomEventPurger {
  /** Runs a pass now (tests). */
  runNow(): Promise<{ deleted: number; statements: number }>;
  stop(): Promise<void>;
}

/**
 * The loop a worker runs: a pass `firstAfterMs` after start, then every `intervalMs`. Every worker
 * runs one; two passes at once delete the same prefixes and one of them finds nothing left.
 */
export function startRoomEventPurger(
  deps: { db: Db; logger: Logger; defaultHours: number },
  { intervalMs = 10 * 60_000, firstAfterMs = 60_000, batch = 1000 } = {},
): RoomEventPurger {
  let stopped = false;
  let current: Promise<{ deleted: number; statements: number }> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const pass = () => {
    current ??= purgeRoomEvents(deps.db, { defaultHours: deps.defaultHours, batch, stopped: () => stopped })
      .then((done) => {
        if (done.deleted) deps.logger.info(done, 'room events: purged past their retention');
        return done;
      })
      .finally(() => {
        current = undefined;
      });
    return current;
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      pass()
        .catch((err: unknown) => deps.logger.warn({ err }, 'room events: purge pass failed; retrying later'))
        .finally(() => schedule(intervalMs));
    }, ms);
    timer.unref();
  };
  schedule(firstAfterMs);
  return {
    runNow: pass,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current?.catch(() => undefined);
    },
  };
}
