import type { Db } from '../../db/knex';
import { appendRoomEvents } from '../../services/rooms/roomEvents';
import { createLogger } from '../../logger';
import { purgeRoomBatch, purgeRoomEvents, startRoomEventPurger } from '../../services/rooms/roomEventRetention';
import { apiClient, newTeam, useApiSuite } from '../support/helpers';
import { readStream } from '../support/sse';

/** Appends `count` message.delta events to the room, 500 a statement. */
async function fill(db: Db, roomId: string, count: number): Promise<void> {
  for (let done = 0; done < count; done += 500) {
    const n = Math.min(500, count - done);
    await appendRoomEvents(
      db,
      roomId,
      Array.from({ length: n }, (_, i) => ({ type: 'message.delta' as const, data: { text: `e${done + i + 1}` } })),
    );
  }
}

/** Backdates the room's events `from..to` by `hours`. */
const age = (db: Db, roomId: string, from: number, to: number, hours: number) =>
  db('room_events')
    .where({ room_id: roomId })
    .whereBetween('seq', [from, to])
    .update({ created_at: db.raw(`now() - make_interval(hours => ?)`, [hours]) });

const kept = async (db: Db, roomId: string) => {
  const row = await db('room_events')
    .where({ room_id: roomId })
    .first(db.raw('count(*)::int AS n'), db.raw('min(seq)::int AS first'), db.raw('max(seq)::int AS last'));
  return row as { n: number; first: number | null; last: number | null };
};

/**
 * Stream event retention (docs/AGENTS.md › Streams): a team's setting (default
 * ROOM_EVENT_RETENTION_HOURS, never under 24 h) purges old events in small batches, oldest first,
 * and a stream asked to resume before what is kept says so with a `gap` event.
 */
describe('room events: retention, purge in batches, gap', () => {
  const suite = useApiSuite('room-retention');
  const openRoom = async (api = suite.api, name: string) => {
    const res = await api.post('/rooms', { name });
    expect([200, 201]).toContain(res.status);
    return res.body as { room: { id: string }; streamUrl: string };
  };

  it('the team setting is at least 24 hours', async () => {
    const low = await suite.api.call('PATCH', '/team/settings', { rooms: { eventRetentionHours: 12 } });
    expect(low.status).toBe(400);
    const set = await suite.api.call('PATCH', '/team/settings', { rooms: { eventRetentionHours: 24 } });
    expect(set.status).toBe(200);
    expect(set.body.settings.rooms).toEqual({ eventRetentionHours: 24 });
  });

  it('purges events past the team retention in batches, oldest first, keeping recent ones and other teams’', async () => {
    // This team keeps 24 h (above); another keeps the default (720 h here).
    const mine = await openRoom(suite.api, 'purged');
    await fill(suite.db, mine.room.id, 3_000);
    await age(suite.db, mine.room.id, 1, 2_500, 48);
    // One younger event among the old ones (a long transaction's): the purge stops before it, so what is kept stays gapless.
    await age(suite.db, mine.room.id, 2_400, 2_400, 1);
    const otherApi = apiClient(suite.server.baseUrl, await newTeam(suite.db, 'room-retention-other'));
    const theirs = await openRoom(otherApi, 'kept');
    await fill(suite.db, theirs.room.id, 1_000);
    await age(suite.db, theirs.room.id, 1, 1_000, 48);

    // One statement deletes one batch at most.
    const cutoff = new Date(Date.now() - 24 * 3600 * 1000);
    expect(await purgeRoomBatch(suite.db, mine.room.id, cutoff, 500)).toBe(500);
    expect((await kept(suite.db, mine.room.id)).first).toBe(501);

    const pass = await purgeRoomEvents(suite.db, { defaultHours: 720, batch: 500 });
    expect(pass.deleted).toBeGreaterThanOrEqual(1_899);
    expect(pass.statements).toBeGreaterThanOrEqual(4);
    expect(await kept(suite.db, mine.room.id)).toEqual({ n: 601, first: 2_400, last: 3_000 });
    expect(await kept(suite.db, theirs.room.id)).toEqual({ n: 1_000, first: 1, last: 1_000 });
    // A second pass finds nothing more of this room.
    await purgeRoomEvents(suite.db, { defaultHours: 720, batch: 500 });
    expect((await kept(suite.db, mine.room.id)).n).toBe(601);

    // A shorter default purges the other team's room too; never below 24 h, whatever it is given.
    await age(suite.db, theirs.room.id, 501, 1_000, 1);
    await purgeRoomEvents(suite.db, { defaultHours: 1, batch: 500 });
    expect(await kept(suite.db, theirs.room.id)).toEqual({ n: 500, first: 501, last: 1_000 });
  });

  it('does not hold up writers: an append goes through while a purge statement holds its rows', async () => {
    const busy = await openRoom(suite.api, 'busy-locked');
    await fill(suite.db, busy.room.id, 1_000);
    await age(suite.db, busy.room.id, 1, 1_000, 48);
    const cutoff = new Date(Date.now() - 24 * 3600 * 1000);
    // A purge statement whose transaction stays open: an append that waited on any lock it holds
    // could only finish once it ends (the rollback below), never before.
    const purge = await suite.db.transaction();
    try {
      expect(await purgeRoomBatch(purge, busy.room.id, cutoff, 500)).toBe(500);
      let timer: NodeJS.Timeout | undefined;
      const appended = await Promise.race([
        appendRoomEvents(suite.db, busy.room.id, [{ type: 'message.delta', data: { text: 'live' } }]),
        new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), 15_000))),
      ]).finally(() => clearTimeout(timer));
      expect(appended).toEqual([1_001]);
    } finally {
      await purge.rollback();
    }
    expect(await kept(suite.db, busy.room.id)).toEqual({ n: 1_001, first: 1, last: 1_001 });
  });

  it('appends to the room go on while a whole pass purges it', async () => {
    const busy = await openRoom(suite.api, 'busy');
    await fill(suite.db, busy.room.id, 20_000);
    await age(suite.db, busy.room.id, 1, 20_000, 48);
    const purging = purgeRoomEvents(suite.db, { defaultHours: 720, batch: 500 });
    let appended = 0;
    let purged = false;
    void purging.then(() => (purged = true));
    for (let i = 0; i < 200 && !purged; i++) {
      await appendRoomEvents(suite.db, busy.room.id, [{ type: 'message.delta', data: { text: 'live' } }]);
      appended++;
    }
    const pass = await purging;
    expect(pass.statements).toBeGreaterThanOrEqual(40);
    expect(appended).toBeGreaterThan(0);
    // Every live event is kept; every old one is gone.
    const left = await kept(suite.db, busy.room.id);
    expect(left).toEqual({ n: appended, first: 20_001, last: 20_000 + appended });
  });

  it('a Last-Event-ID older than what is kept gets a gap event first, naming what is gone', async () => {
    const room = await openRoom(suite.api, 'gap');
    await fill(suite.db, room.room.id, 300);
    await age(suite.db, room.room.id, 1, 200, 48);
    await purgeRoomEvents(suite.db, { defaultHours: 720, batch: 100 });
    expect((await kept(suite.db, room.room.id)).first).toBe(201);

    const resumed = await readStream(room.streamUrl, { lastEventId: 10, maxEvents: 2, timeoutMs: 5_000 });
    expect(resumed.status).toBe(200);
    expect(resumed.events).toEqual([
      { id: 200, type: 'gap', data: { from: 11, to: 200, reason: 'retention' } },
      expect.objectContaining({ id: 201, type: 'message.delta' }),
    ]);
    // A first connect is told too; a Last-Event-ID within what is kept resumes without one.
    const fresh = await readStream(room.streamUrl, { maxEvents: 1, timeoutMs: 5_000 });
    expect(fresh.events[0]).toEqual({ id: 200, type: 'gap', data: { from: 1, to: 200, reason: 'retention' } });
    const within = await readStream(room.streamUrl, { lastEventId: 250, maxEvents: 1, timeoutMs: 5_000 });
    expect(within.events[0]).toMatchObject({ id: 251, type: 'message.delta' });

    // Everything purged: the gap reaches the room's last event, and the stream then waits for new ones.
    const empty = await openRoom(suite.api, 'gap-all');
    await fill(suite.db, empty.room.id, 50);
    await age(suite.db, empty.room.id, 1, 50, 48);
    await purgeRoomEvents(suite.db, { defaultHours: 720, batch: 100 });
    const all = await readStream(empty.streamUrl, { lastEventId: 5, maxEvents: 2, timeoutMs: 3_000 });
    expect(all.events).toEqual([{ id: 50, type: 'gap', data: { from: 6, to: 50, reason: 'retention' } }]);
  });

  it('the worker loop purges on its own timer and stops cleanly', async () => {
    const room = await openRoom(suite.api, 'loop');
    await fill(suite.db, room.room.id, 100);
    await age(suite.db, room.room.id, 1, 60, 48);
    const purger = startRoomEventPurger(
      { db: suite.db, logger: createLogger('silent', 'test'), defaultHours: 720 },
      { firstAfterMs: 10, intervalMs: 60_000, batch: 25 },
    );
    try {
      for (let i = 0; i < 100 && (await kept(suite.db, room.room.id)).first !== 61; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(await kept(suite.db, room.room.id)).toEqual({ n: 40, first: 61, last: 100 });
    } finally {
      await purger.stop();
    }
  });
});
