import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/knex';
import { notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { decodeCursor, Page, PageQuery, toPage } from '../platform/pagination';
import { ROOM_EVENTS_CHANNEL } from './roomEvents';
import type { RoomRow } from './roomRow';

/**
 * Room keys (`rk_…`): each opens one room's stream until it expires or is revoked. The key is
 * shown once and stored as a sha256 hash; its id (also `rk_…`) names it for listing and revoking.
 */
interface RoomKeyRow {
  seq: number;
  id: string;
  room_id: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

export const roomKeyStatusSchema = z.enum(['active', 'expired', 'revoked']);
export type RoomKeyStatus = z.infer<typeof roomKeyStatusSchema>;

export const roomKeySchema = z.object({
  id: z.string(),
  roomId: z.string(),
  status: roomKeyStatusSchema,
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  revokedAt: z.iso.datetime().nullable(),
});
export type RoomKeyJson = z.infer<typeof roomKeySchema>;

const statusOf = (row: Pick<RoomKeyRow, 'expires_at' | 'revoked_at'>, now = new Date()): RoomKeyStatus =>
  row.revoked_at ? 'revoked' : row.expires_at && row.expires_at <= now ? 'expired' : 'active';

const presentRoomKey = (row: RoomKeyRow): RoomKeyJson => ({
  id: row.id,
  roomId: row.room_id,
  status: statusOf(row),
  createdAt: row.created_at.toISOString(),
  expiresAt: row.expires_at?.toISOString() ?? null,
  revokedAt: row.revoked_at?.toISOString() ?? null,
});

export const hashRoomKey = (key: string) => createHash('sha256').update(key).digest('hex');

export interface IssuedRoomKey {
  key: string;
  keyId: string;
  expiresAt: string;
}

/** A new key for a room, valid for `ttlSeconds` (ROOM_KEY_TTL_SECONDS; shorter for prompt_agent's link). */
export async function issueRoomKey(db: Db, roomId: string, ttlSeconds: number): Promise<IssuedRoomKey> {
  const key = `rk_${randomBytes(24).toString('base64url')}`;
  const [row]: { id: string; expires_at: Date }[] = await db('room_keys')
    .insert({
      id: newId('rk'),
      room_id: roomId,
      key_hash: hashRoomKey(key),
      expires_at: db.raw(`now() + make_interval(secs => ?)`, [ttlSeconds]),
    })
    .returning(['id', 'expires_at']);
  return { key, keyId: row.id, expiresAt: row.expires_at.toISOString() };
}

/** The room a key opens, if it is that room's live key (neither expired nor revoked). */
export async function roomByKey(db: Db, roomId: string, key: string): Promise<RoomRow | undefined> {
  return db('rooms')
    .join('room_keys', 'room_keys.room_id', 'rooms.id')
    .where({ 'rooms.id': roomId, 'room_keys.key_hash': hashRoomKey(key) })
    .whereNull('room_keys.revoked_at')
    .where((q) => {
      void q.whereNull('room_keys.expires_at').orWhere('room_keys.expires_at', '>', db.fn.now());
    })
    .first('rooms.*');
}

/** What an open stream's key is now: `active`, `expired`, `revoked` (a deleted room's: revoked). */
export async function roomKeyStatus(db: Db, roomId: string, key: string): Promise<RoomKeyStatus> {
  const row: { expires_at: Date | null; revoked_at: Date | null; now: Date } | undefined = await db('room_keys')
    .where({ room_id: roomId, key_hash: hashRoomKey(key) })
    .first('expires_at', 'revoked_at', db.raw('now() AS now'));
  return row ? statusOf(row, row.now) : 'revoked';
}

export const roomKeyListQuerySchema = z.object({
  cursor: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  status: roomKeyStatusSchema.optional().describe('Only keys in this status'),
});

/** A room's keys, newest first, never the key itself. */
export async function listRoomKeys(
  db: Db,
  roomId: string,
  query: PageQuery & { status?: RoomKeyStatus },
): Promise<Page<RoomKeyJson>> {
  const after = decodeCursor(query.cursor);
  const rows: RoomKeyRow[] = await db('room_keys')
    .where({ room_id: roomId })
    .modify((q) => {
      if (after !== null) q.where('seq', '<', after);
      if (query.status === 'revoked') q.whereNotNull('revoked_at');
      if (query.status === 'expired') q.whereNull('revoked_at').where('expires_at', '<=', db.fn.now());
      if (query.status === 'active')
        q.whereNull('revoked_at').where((w) => {
          void w.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now());
        });
    })
    .orderBy('seq', 'desc')
    .limit(query.limit + 1)
    .select('seq', 'id', 'room_id', 'expires_at', 'revoked_at', 'created_at');
  return toPage(rows, query.limit, presentRoomKey);
}

/**
 * Wakes the room's open streams (a bare NOTIFY): each checks its key at once and closes if it was
 * revoked. Streams also check on their 5-second recheck, so a lost notification costs that.
 */
const wakeStreams = (db: Db, roomId: string) => db.raw('SELECT pg_notify(?, ?)', [ROOM_EVENTS_CHANNEL, roomId]);

/** Revokes one key of the room (repeating is harmless: the key as it is). */
export async function revokeRoomKey(db: Db, roomId: string, keyId: string): Promise<RoomKeyJson> {
  await db('room_keys')
    .where({ room_id: roomId, id: keyId })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() });
  const row: RoomKeyRow | undefined = await db('room_keys').where({ room_id: roomId, id: keyId }).first();
  if (!row) throw notFound('Room key');
  await wakeStreams(db, roomId);
  return presentRoomKey(row);
}

export const revokedKeysSchema = z.object({ revoked: z.number().int() });

/** Revokes every active key of the room; answers how many. */
export async function revokeAllRoomKeys(db: Db, roomId: string): Promise<z.infer<typeof revokedKeysSchema>> {
  const revoked = await db('room_keys')
    .where({ room_id: roomId })
    .whereNull('revoked_at')
    .where((q) => {
      void q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now());
    })
    .update({ revoked_at: db.fn.now() });
  await wakeStreams(db, roomId);
  return { revoked };
}
