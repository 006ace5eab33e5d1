import { z } from 'zod';
import { findAgent } from '../../services/agents/agents';
import type { AppContext } from '../../services/platform/context';
import { notFound } from '../../services/platform/errors';
import { pageSchema } from '../../services/platform/pagination';
import { listRoomMessages, messageListQuerySchema, messageSchema } from '../../services/rooms/messages';
import { promptAgent, promptAnswerSchema, promptSchema } from '../../services/rooms/promptAgent';
import {
  listRooms,
  openedRoomSchema,
  openRoom,
  openRoomSchema,
  roomListQuerySchema,
  roomSchema,
  teamRoom,
} from '../../services/rooms/rooms';
import {
  listRoomKeys,
  revokeAllRoomKeys,
  revokeRoomKey,
  roomKeyListQuerySchema,
  roomKeySchema,
} from '../../services/rooms/roomKeys';
import { getTurn, turnSchema } from '../../services/rooms/turns';
import { authOf } from '../auth';
import { defineRoute, json, locationHeader, Route } from '../routeTable';

const roomParams = z.object({ roomId: z.string().min(1).max(100) });
const revokedKeysSchema = z.object({ revoked: z.number().int() });

/** Rooms, messages to an agent and their turns over HTTP (the MCP tools' twins; streams are at /agents/stream). */
export function roomsRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/agents/{agentId}/messages',
      tag: 'Rooms',
      access: 'write',
      summary: 'Say something to an agent and wait (up to waitSeconds) for its reply',
      description:
        'Posts the message to a room (roomId, else your own room with the agent) and runs a turn. 200 with the ' +
        'reply when the turn ended within waitSeconds; else 202 with the turn so far, its URL (Location) and a ' +
        'stream URL to follow it live.',
      params: z.object({ agentId: z.string() }),
      body: { kind: 'json', schema: promptSchema },
      responses: {
        200: json(promptAnswerSchema, 'The turn ended: reply (or error) included'),
        202: json(promptAnswerSchema, 'The turn goes on: follow streamUrl or poll Location', locationHeader),
      },
      handler: async ({ req, params, body }) => {
        const { team, principal } = authOf(req);
        if (!(await findAgent(ctx.db, team.id, params.agentId))) throw notFound('Agent');
        const answer = await promptAgent(ctx, team, principal, params.agentId, body);
        const ended = answer.status === 'completed' || answer.status === 'failed';
        return {
          status: ended ? 200 : 202,
          body: answer,
          headers: ended ? undefined : { Location: turnUrl(ctx, answer.roomId, answer.turnId) },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/rooms',
      tag: 'Rooms',
      access: 'write',
      summary: 'Create or reuse a room, and get a key to stream it (the same as POST /mcp/rooms)',
      body: { kind: 'json', schema: openRoomSchema, optional: true },
      responses: {
        200: json(openedRoomSchema, 'An existing room, with a new key'),
        201: json(openedRoomSchema, 'A new room, with its key'),
      },
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        const opened = await openRoom(ctx, team.id, principal, body ?? {});
        return { status: opened.created ? 201 : 200, body: opened };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/rooms',
      tag: 'Rooms',
      access: 'read',
      summary: "The team's rooms, newest first (optionally one agent's)",
      query: roomListQuerySchema,
      responses: { 200: json(pageSchema(roomSchema), 'A page of rooms') },
      handler: async ({ req, query }) => ({ status: 200, body: await listRooms(ctx.db, authOf(req).team.id, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/rooms/{roomId}/keys',
      tag: 'Rooms',
      access: 'read',
      summary: "A room's stream keys, newest first: status and expiry, never the key itself",
      params: roomParams,
      query: roomKeyListQuerySchema,
      responses: { 200: json(pageSchema(roomKeySchema), 'A page of keys') },
      handler: async ({ req, params, query }) => {
        const room = await teamRoom(ctx.db, authOf(req).team.id, params.roomId);
        return { status: 200, body: await listRoomKeys(ctx.db, room.id, query) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/rooms/{roomId}/keys/{keyId}',
      tag: 'Rooms',
      access: 'write',
      summary: 'Revoke one stream key: its open streams end within seconds, its next connect is 401',
      params: roomParams.extend({ keyId: z.string().min(1).max(100) }),
      responses: { 200: json(roomKeySchema, 'The revoked key (repeating is harmless)') },
      handler: async ({ req, params }) => {
        const room = await teamRoom(ctx.db, authOf(req).team.id, params.roomId);
        return { status: 200, body: await revokeRoomKey(ctx.db, room.id, params.keyId) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/rooms/{roomId}/keys',
      tag: 'Rooms',
      access: 'write',
      summary: "Revoke every active stream key of a room (the room's streams end within seconds)",
      params: roomParams,
      responses: { 200: json(revokedKeysSchema, 'How many keys were revoked') },
      handler: async ({ req, params }) => {
        const room = await teamRoom(ctx.db, authOf(req).team.id, params.roomId);
        return { status: 200, body: await revokeAllRoomKeys(ctx.db, room.id) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/rooms/{roomId}/messages',
      tag: 'Rooms',
      access: 'read',
      summary: "A room's transcript, a page at a time (oldest first unless order=desc)",
      params: roomParams,
      query: messageListQuerySchema,
      responses: { 200: json(pageSchema(messageSchema), 'A page of messages') },
      handler: async ({ req, params, query }) => {
        const room = await teamRoom(ctx.db, authOf(req).team.id, params.roomId);
        return { status: 200, body: await listRoomMessages(ctx.db, room.id, query) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/rooms/{roomId}/turns/{turnId}',
      tag: 'Rooms',
      access: 'read',
      summary: 'A turn: status, reply, tokens, the approvals it waits on, and (while it runs) its progress',
      params: roomParams.extend({ turnId: z.string().min(1).max(200) }),
      responses: { 200: json(turnSchema, 'The turn') },
      handler: async ({ req, params }) => {
        const turn = await getTurn(ctx, authOf(req).team.id, params.turnId, { withProgress: true });
        if (turn.roomId !== params.roomId) throw notFound('Turn');
        return { status: 200, body: turn };
      },
    }),
  ];
}

export const turnUrl = (ctx: AppContext, roomId: string, turnId: string) =>
  `${ctx.config.baseUrl}/rooms/${roomId}/turns/${encodeURIComponent(turnId)}`;
