import { z } from 'zod';
import type { Db } from '../../db/knex';
import { credentialAgentId, findAgent, sendingAgent } from '../agents/agents';
import type { Principal } from '../identity/principal';
import type { AppContext } from '../platform/context';
import { AppError, notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { decodeCursor, encodeCursor, Page, PageQuery } from '../platform/pagination';
import { issueRoomKey } from './roomKeys';

import type { RoomRow } from './roomRow';

export type { RoomRow };

export const roomSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  name: z.string(),
  /** The last event's sequence: a stream that has seen it is up to date. */
  lastEventId: z.number().int(),
  createdAt: z.iso.datetime(),
  lastActivityAt: z.iso.datetime(),
});
export type RoomJson = z.infer<typeof roomSchema>;

export const presentRoom = (row: RoomRow): RoomJson => ({
  id: row.id,
  agentId: row.agent_id,
  name: row.name,
  lastEventId: row.last_event_seq,
  createdAt: row.created_at.toISOString(),
  lastActivityAt: row.last_activity_at.toISOString(),
});

const roomNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[^\s:][^:]*$/, 'a name without ":"');

export const openRoomSchema = z.strictObject({
  agentId: z
    .uuid()
    .optional()
    .describe("The agent to talk to; default: the credential's agent (OAuth), else the team's first agent"),
  name: roomNameSchema
    .optional()
    .describe('A name of your choosing; the same name for the same agent reuses that room. Default: "default"'),
  roomId: z.string().min(1).max(100).optional().describe('An existing room of the team: answers a new key for it'),
});
export type OpenRoomInput = z.infer<typeof openRoomSchema>;

export const openedRoomSchema = z.object({
  room: roomSchema,
  created: z.boolean(),
  /** Shown once: stored only as a hash. Every call answers a new key; each stays valid until it expires or is revoked. */
  key: z.string(),
  /** The key's id: what listing and revoking name it by. */
  keyId: z.string(),
  /** When the key stops opening the stream (ROOM_KEY_TTL_SECONDS after now). */
  expiresAt: z.iso.datetime(),
  streamUrl: z.url(),
});

/** Where a room streams: `{mcp_url}/agents/stream/{roomId}?key=…`. */
export const streamUrl = (ctx: AppContext, roomId: string, key?: string) =>
  `${ctx.config.mcpUrl}/agents/stream/${roomId}${key ? `?key=${encodeURIComponent(key)}` : ''}`;

/** The team's room by id; another team's (or a malformed id) is not found. */
export async function teamRoom(db: Db, teamId: string, roomId: string): Promise<RoomRow> {
  const row: RoomRow | undefined = await db('rooms').where({ id: roomId, team_id: teamId }).first();
  if (!row) throw notFound('Room');
  return row;
}

/** Finds the agent's room of that name, or creates it: concurrent calls end with one room. */
export async function findOrCreateRoom(
  db: Db,
  teamId: string,
  agentId: string,
  name: string,
  createdBy: string | null,
  callerTeamId: string | null = null,
): Promise<{ room: RoomRow; created: boolean }> {
  const [inserted]: RoomRow[] = await db('rooms')
    .insert({
      id: newId('rm'),
      team_id: teamId,
      agent_id: agentId,
      name,
      created_by: createdBy,
      caller_team_id: callerTeamId,
    })
    .onConflict(['agent_id', 'name'])
    .ignore()
    .returning('*');
  if (inserted) return { room: inserted, created: true };
  return { room: await db('rooms').where({ agent_id: agentId, name }).first(), created: false };
}

/** `POST {auth_url}/mcp/rooms`: the room (created or reused) and a new key to stream it with. */
export async function openRoom(
  ctx: AppContext,
  teamId: string,
  principal: Principal,
  input: OpenRoomInput,
): Promise<z.infer<typeof openedRoomSchema>> {
  let opened: { room: RoomRow; created: boolean };
  if (input.roomId) {
    if (input.agentId || input.name)
      throw new AppError('validation_error', 'Pass roomId alone, or agentId and name', {
        issues: [{ path: 'roomId', message: 'roomId names the room by itself', code: 'custom' }],
      });
    opened = { room: await teamRoom(ctx.db, teamId, input.roomId), created: false };
  } else {
    // The agent named, else the credential's own agent, else the team's first.
    const agentId = input.agentId ?? (await sendingAgent(ctx.db, teamId, null, credentialAgentId(principal))).id;
    if (!(await findAgent(ctx.db, teamId, agentId))) throw notFound('Agent');
    opened = await findOrCreateRoom(ctx.db, teamId, agentId, input.name ?? 'default', principal.userId);
  }
  const { key, keyId, expiresAt } = await issueRoomKey(ctx.db, opened.room.id, ctx.config.ROOM_KEY_TTL_SECONDS);
  return {
    room: presentRoom(opened.room),
    created: opened.created,
    key,
    keyId,
    expiresAt,
    streamUrl: streamUrl(ctx, opened.room.id, key),
  };
}

export const roomListQuerySchema = z.object({
  cursor: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  agentId: z.uuid().optional().describe("Only this agent's rooms"),
});

/** The team's rooms, newest first. */
export async function listRooms(
  db: Db,
  teamId: string,
  query: PageQuery & { agentId?: string },
): Promise<Page<RoomJson>> {
  const after = decodeCursor(query.cursor);
  const rows: RoomRow[] = await db('rooms')
    .where({ team_id: teamId })
    .modify((q) => {
      if (query.agentId) q.where({ agent_id: query.agentId });
      if (after !== null) q.where('seq', '<', after);
    })
    .orderBy('seq', 'desc')
    .limit(query.limit + 1)
    .select('*');
  const more = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  return {
    data: page.map(presentRoom),
    pagination: {
      nextCursor: more ? encodeCursor(page[page.length - 1].seq) : null,
      limit: query.limit,
    },
  };
}
