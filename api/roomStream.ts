import { createSession } from 'better-sse';
import { Router } from 'express';
import type { AppContext } from '../services/platform/context';
import { AppError } from '../services/platform/errors';
import { eventsSince, type RoomEvent } from '../services/rooms/roomEvents';
import { roomEventHub } from '../services/rooms/roomEventHub';
import { roomByKey } from '../services/rooms/rooms';

/** Comment lines on an idle stream, so proxies and load balancers keep it open. */
export const STREAM_HEARTBEAT_MS = 15_000;
/** NOTIFY only wakes; a stream also reads the table this often, so a missed wake costs at most this. */
const STREAM_RECHECK_MS = 5_000;
const READ_BATCH = 500;

const badKey = () =>
  new AppError(401, 'unauthorized', 'A valid room key is required: ?key=<ROOM_KEY> from POST /mcp/rooms');

/** Last-Event-ID (header, or `lastEventId` in the query for clients that cannot set headers): a sequence we sent. */
function resumeAfter(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  if (!/^\d{1,15}$/.test(raw))
    throw new AppError(400, 'validation_error', 'Last-Event-ID must be the id of an event this stream sent', {
      issues: [{ path: 'Last-Event-ID', message: 'not an event id', code: 'custom' }],
    });
  return Number(raw);
}

/**
 * `GET {mcp_url}/agents/stream/{roomId}?key=<ROOM_KEY>`: a room's events as Server-Sent Events,
 * `id:` = the room's gapless sequence. The event table is the truth, so a client that reconnects
 * with Last-Event-ID gets exactly what it missed, from any API process; the next event in order,
 * when its notification carries it, is sent without reading the table.
 */
export function roomStreamRouter(ctx: AppContext): Router {
  const router = Router();
  router.get('/agents/stream/:roomId', async (req, res) => {
    const key = typeof req.query.key === 'string' ? req.query.key : '';
    const room = key ? await roomByKey(ctx.db, req.params.roomId, key) : undefined;
    if (!room) throw badKey();
    const header = req.header('last-event-id');
    let sent = resumeAfter(header ?? (typeof req.query.lastEventId === 'string' ? req.query.lastEventId : undefined));

    const session = await createSession(req, res, {
      keepAlive: STREAM_HEARTBEAT_MS,
      retry: 1_000,
      trustClientEventId: false,
      headers: { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
    });

    // One reader at a time; a wake during a read makes it read again.
    let reading = false;
    let wokenWhileReading = false;
    const pump = async (): Promise<void> => {
      if (reading) {
        wokenWhileReading = true;
        return;
      }
      reading = true;
      try {
        do {
          wokenWhileReading = false;
          for (;;) {
            const events = await eventsSince(ctx.db, room.id, sent, READ_BATCH);
            for (const event of events) {
              if (!session.isConnected) return;
              session.push(event.data, event.type, String(event.seq));
              sent = event.seq;
            }
            if (events.length < READ_BATCH) break;
          }
        } while (wokenWhileReading && session.isConnected);
      } catch (err) {
        req.log?.warn({ err, roomId: room.id }, 'room stream: reading events failed; the next wake retries');
      } finally {
        reading = false;
      }
    };

    // The next event, told in its notification, goes out as it is; anything else (a gap, a
    // notification without its event, a read in progress) is read from the table.
    const told = (event?: RoomEvent) => {
      if (event && event.seq <= sent) return;
      if (event && event.seq === sent + 1 && !reading && session.isConnected) {
        session.push(event.data, event.type, String(event.seq));
        sent = event.seq;
        return;
      }
      void pump();
    };

    const recheck = setInterval(() => void pump(), STREAM_RECHECK_MS);
    let unsubscribe: (() => void) | undefined;
    let gone = false;
    session.once('disconnected', () => {
      gone = true;
      clearInterval(recheck);
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
