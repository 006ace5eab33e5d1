import { createSession, EventBuffer } from 'better-sse';
import type { ServerResponse } from 'node:http';
import { Router } from 'express';
import type { AppContext } from '../services/platform/context';
import { AppError } from '../services/platform/errors';
import { eventsSince, type RoomEvent } from '../services/rooms/roomEvents';
import { roomEventHub } from '../services/rooms/roomEventHub';
import { roomByKey, roomKeyStatus } from '../services/rooms/roomKeys';

/** Comment lines on an idle stream, so proxies and load balancers keep it open. */
export const STREAM_HEARTBEAT_MS = 15_000;
/** NOTIFY only wakes; a stream also reads the table (and checks its key) this often, so a missed wake costs at most this. */
const STREAM_RECHECK_MS = 5_000;
const READ_BATCH = 500;

const badKey = () => new AppError('unauthorized', 'A valid room key is required: ?key=<ROOM_KEY> from POST /mcp/rooms');

/** Last-Event-ID (header, or `lastEventId` in the query for clients that cannot set headers): a sequence we sent. */
function resumeAfter(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  if (!/^\d{1,15}$/.test(raw))
    throw new AppError('validation_error', 'Last-Event-ID must be the id of an event this stream sent', {
      issues: [{ path: 'Last-Event-ID', message: 'not an event id', code: 'custom' }],
    });
  return Number(raw);
}

/**
 * Catch-up batches (a stream behind by a full batch or more) that one API process writes at once:
 * the rest wait their turn, so many readers replaying long rooms leave the event loop free for
 * live rooms' events.
 */
const CATCH_UP_BATCHES_AT_ONCE = 2;
let catchUpRunning = 0;
const catchUpQueue: (() => void)[] = [];
async function catchUpTurn(): Promise<() => void> {
  if (catchUpRunning >= CATCH_UP_BATCHES_AT_ONCE) await new Promise<void>((resolve) => catchUpQueue.push(resolve));
  else catchUpRunning++;
  return () => {
    const next = catchUpQueue.shift();
    if (next) next();
    else catchUpRunning--;
  };
}

/** Resolves once the socket has taken what was written (at once if it has room), or closed. */
function drained(res: ServerResponse): Promise<void> {
  if (!res.writableNeedDrain || res.writableEnded || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * `GET {mcp_url}/agents/stream/{roomId}?key=<ROOM_KEY>`: a room's events as Server-Sent Events,
 * `id:` = the room's gapless sequence. The event table is the truth, so a client that reconnects
 * with Last-Event-ID gets exactly what it missed, from any API process; the next event in order,
 * when its notification carries it, is sent without reading the table. Events older than the
 * team's retention are gone: a `gap` event says which (docs/AGENTS.md › Streams). A batch is
 * read only once the socket took the last one, so a slow reader holds one batch, not the room.
 * The key is checked again on every recheck and bare wake: expired or revoked, the stream ends.
 */
export function roomStreamRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/agents/stream/:roomId', async (req, res) => {
    const key = typeof req.query.key === 'string' ? req.query.key : '';
    const room = key ? await roomByKey(ctx.db, req.params.roomId, key) : undefined;
    if (!room) throw badKey();
    const header = req.header('last-event-id');
    let sent = resumeAfter(header ?? (typeof req.query.lastEventId === 'string' ? req.query.lastEventId : undefined));
    /** Every event up to here had committed when we connected: one missing from the table was purged. */
    const committedAtConnect = Number(room.last_event_seq);

    const session = await createSession(req, res, {
      keepAlive: STREAM_HEARTBEAT_MS,
      retry: 1_000,
      trustClientEventId: false,
      headers: { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
    });

    /** Events after `sent` up to `to` are no longer kept: say so, with `id: to` so a reconnect resumes after it. */
    const gap = (buffer: EventBuffer, to: number) => {
      buffer.push({ from: sent + 1, to, reason: 'retention' }, 'gap', String(to));
      sent = to;
    };

    // One reader at a time; a wake during a read makes it read again.
    let reading = false;
    let wokenWhileReading = false;
    const pump = async (): Promise<void> => {
      if (reading) {
        wokenWhileReading = true;
        return;
      }
      reading = true;
      let release: (() => void) | undefined;
      try {
        do {
          wokenWhileReading = false;
          for (let behind = false; ;) {
            // Backpressure: the next batch only once the socket took the last one.
            await drained(res);
            if (!session.isConnected) return;
            // A stream still behind after a full batch takes its turn among the catch-ups.
            if (behind) release = await catchUpTurn();
            const events = await eventsSince(ctx.db, room.id, sent, READ_BATCH);
            if (!session.isConnected) return;
            const buffer = new EventBuffer();
            if (events.length > 0 && events[0].seq > sent + 1) gap(buffer, events[0].seq - 1);
            else if (events.length === 0 && sent < committedAtConnect) gap(buffer, committedAtConnect);
            for (const event of events) {
              buffer.push(event.data, event.type, String(event.seq));
              sent = event.seq;
            }
            if (buffer.read()) await session.batch(buffer);
            release?.();
            release = undefined;
            if (events.length < READ_BATCH) break;
            behind = true;
          }
        } while (wokenWhileReading && session.isConnected);
      } catch (err) {
        req.log?.warn({ err, roomId: room.id }, 'room stream: reading events failed; the next wake retries');
      } finally {
        release?.();
        reading = false;
      }
    };

    /** The key still opens the room; else the stream says why and ends (its next connect is 401). */
    let closing = false;
    const keyHolds = async (): Promise<boolean> => {
      if (closing) return false;
      const status = await roomKeyStatus(ctx.db, room.id, key).catch(() => 'active' as const);
      if (status === 'active' || closing || !session.isConnected) return status === 'active';
      closing = true;
      session.push({ reason: status === 'expired' ? 'key_expired' : 'key_revoked' }, 'closed', String(sent));
      res.end();
      return false;
    };
    const recheck = async () => {
      if (await keyHolds()) await pump();
    };

    // The next event, told in its notification, goes out as it is (when the socket has room);
    // anything else (a gap, a bare wake, a read in progress, a full socket) is read from the table.
    // A bare wake may be a revocation: the key is checked first.
    const told = (event?: RoomEvent) => {
      if (closing) return;
      if (!event) return void recheck();
      if (event.seq <= sent) return;
      if (event.seq === sent + 1 && !reading && session.isConnected && !res.writableNeedDrain) {
        session.push(event.data, event.type, String(event.seq));
        sent = event.seq;
        return;
      }
      void pump();
    };

    const recheckTimer = setInterval(() => void recheck(), STREAM_RECHECK_MS);
    let unsubscribe: (() => void) | undefined;
    let gone = false;
    session.once('disconnected', () => {
      gone = true;
      clearInterval(recheckTimer);
      unsubscribe?.();
    });
    try {
      const off = await roomEventHub(ctx).subscribe(room.id, told, () => res.end());
      if (gone) off();
      else unsubscribe = off;
    } catch (err) {
      // Without LISTEN the stream still flows, at the pace of the recheck.
      req.log?.warn({ err, roomId: room.id }, 'room stream: LISTEN unavailable; reading on the recheck only');
    }
    await pump();
  });
  return router;
}
