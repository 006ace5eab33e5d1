import http from 'node:http';
import { createParser } from 'eventsource-parser';
import type { Db } from '../db/knex';
import { appendRoomEvents } from '../services/rooms/roomEvents';
import { peakRss, rssOf } from './procStats';

/**
 * (k) A long room replayed to many slow readers at once: a room of `events` events, and `readers`
 * SSE clients that each take one chunk every READ_PAUSE_MS for `readSeconds`, then leave. The
 * stream reads its next batch only once the socket drained (api/roomStream.ts), so the API's
 * memory holds a batch per reader, not the room. Printed: the API's RSS before, at its peak and
 * after; and the latency of a live room's events (insert → a fast reader) while nothing replays
 * and during the replay.
 */
export interface RoomReplayBenchOptions {
  db: Db;
  baseUrl: string;
  apiPid: number;
  team: { token: string; team: string };
  events: number;
  readers: number;
  readSeconds: number;
  log: (line: string) => void;
}

/** A slow reader takes a chunk (one socket read) and then waits this long before the next. */
const READ_PAUSE_MS = 200;
const LATENCY_SAMPLES = 40;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function openRoom(opts: RoomReplayBenchOptions, name: string) {
  const res = await fetch(`${opts.baseUrl}/rooms`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${opts.team.token}`,
      'x-team-slug': opts.team.team,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ name }),
  });
  return (await res.json()) as { room: { id: string }; streamUrl: string };
}

/** A reader that reads slowly for `seconds`, then drops the connection; answers the bytes it read. */
function slowReader(url: string, seconds: number): Promise<number> {
  return new Promise((resolve) => {
    let bytes = 0;
    const req = http.get(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        res.pause();
        setTimeout(() => res.resume(), READ_PAUSE_MS).unref();
      });
    });
    req.on('error', () => resolve(bytes));
    setTimeout(() => {
      req.destroy();
      resolve(bytes);
    }, seconds * 1000);
  });
}

/** A fast reader of a live room: when each event (its data carries `t`, the insert time) arrived, in ms. */
function liveReader(url: string) {
  const latencies: number[] = [];
  const abort = new AbortController();
  const parser = createParser({
    onEvent: (event) => {
      const { t } = JSON.parse(event.data) as { t?: number };
      if (typeof t === 'number') latencies.push(performance.timeOrigin + performance.now() - t);
    },
  });
  const reading = (async () => {
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk));
  })().catch(() => undefined);
  return {
    latencies,
    close: async () => {
      abort.abort();
      await reading;
    },
  };
}

/** `LATENCY_SAMPLES` live events, one every `everyMs`: their delivery latencies. */
async function sampleLive(db: Db, roomId: string, reader: ReturnType<typeof liveReader>, everyMs: number) {
  const from = reader.latencies.length;
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    await appendRoomEvents(db, roomId, [
      {
        type: 'message.delta',
        data: { messageId: 'msg_live', text: 'x', t: performance.timeOrigin + performance.now() },
      },
    ]);
    await sleep(everyMs);
  }
  await sleep(500);
  return reader.latencies.slice(from);
}

export async function benchRoomReplay(opts: RoomReplayBenchOptions): Promise<string[]> {
  const long = await openRoom(opts, 'bench-k-long');
  const live = await openRoom(opts, 'bench-k-live');
  // The long room's events, written in one statement (each about 150 bytes on the wire).
  await opts.db.raw(
    `INSERT INTO room_events (room_id, seq, type, data)
     SELECT ?, g, 'message.delta', jsonb_build_object('messageId', 'msg_bench', 'text', repeat('x', 80) || g)
       FROM generate_series(1, ?) g`,
    [long.room.id, opts.events],
  );
  await opts.db('rooms').where({ id: long.room.id }).update({ last_event_seq: opts.events });
  await opts.db.raw('ANALYZE room_events');

  const liveRoom = liveReader(live.streamUrl);
  await sleep(1000);
  const idle = await sampleLive(opts.db, live.room.id, liveRoom, 100);

  const before = rssOf(opts.apiPid);
  const peak = peakRss(opts.apiPid);
  const started = performance.now();
  const replaying = Promise.all(
    Array.from({ length: opts.readers }, () => slowReader(long.streamUrl, opts.readSeconds)),
  );
  await sleep(2000);
  const during = await sampleLive(opts.db, live.room.id, liveRoom, Math.max(50, (opts.readSeconds * 1000) / 80));
  const read = await replaying;
  const replaySeconds = (performance.now() - started) / 1000;
  const peakMiB = peak();
  await sleep(3000);
  const after = rssOf(opts.apiPid);
  await liveRoom.close();

  const totalBytes = read.reduce((a, b) => a + b, 0);
  const eventsRead = Math.round(totalBytes / 150);
  opts.log(
    `(k) ${opts.readers} slow readers of ${opts.events} events: API RSS ${before.toFixed(0)} → peak ${peakMiB.toFixed(0)} → ${after.toFixed(0)} MiB`,
  );
  const ms = (v: number) => v.toFixed(1);
  return [
    '',
    `## (k) A ${opts.events.toLocaleString('en')}-event room replayed to ${opts.readers} slow readers at once`,
    `Each reader takes a chunk (one socket read) every ${READ_PAUSE_MS} ms for ${opts.readSeconds} s, then leaves; the stream reads its next batch (500 events) only once the socket drained.`,
    '',
    '| API RSS before | peak during the replay | 3 s after the readers left | read by all readers | replay window |',
    '|---|---|---|---|---|',
    `| ${before.toFixed(0)} MiB | ${peakMiB.toFixed(0)} MiB (+${(peakMiB - before).toFixed(0)}) | ${after.toFixed(0)} MiB | ${(totalBytes / 1024 / 1024).toFixed(1)} MiB (≈ ${eventsRead.toLocaleString('en')} events; the room is ≈ ${((opts.events * 150) / 1024 / 1024).toFixed(1)} MiB a reader) | ${replaySeconds.toFixed(1)} s |`,
    '',
    '| a live room, insert → its fast reader | samples | p50 ms | p95 ms | max ms |',
    '|---|---|---|---|---|',
    `| idle | ${idle.length} | ${ms(percentile(idle, 50))} | ${ms(percentile(idle, 95))} | ${ms(Math.max(...idle))} |`,
    `| during the replay | ${during.length} | ${ms(percentile(during, 50))} | ${ms(percentile(during, 95))} | ${ms(Math.max(...during))} |`,
  ];
}
