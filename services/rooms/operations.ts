import { z } from 'zod';
import { findAgent } from '../agents/agents';
import type { AppContext } from '../platform/context';
import { notFound } from '../platform/errors';
import { connectedAgent, defineOperation, Feature, id } from '../platform/operation';
import { pageSchema } from '../platform/pagination';
import { listRoomMessages, messageListQuerySchema, messageSchema } from './messages';
import { promptAgent, PromptInput, promptAnswerSchema, promptSchema } from './promptAgent';
import {
  listRoomKeys,
  revokeAllRoomKeys,
  revokedKeysSchema,
  revokeRoomKey,
  roomKeyListQuerySchema,
  roomKeySchema,
} from './roomKeys';
import {
  listRooms,
  openedRoomSchema,
  openRoom,
  openRoomSchema,
  roomListQuerySchema,
  roomSchema,
  teamRoom,
} from './rooms';
import { getTurn, turnSchema } from './turns';
import { cancelRunningTurn } from './cancelTurn';

const tag = 'Rooms';
const roomParams = z.object({ roomId: z.string().min(1).max(100) });
const turnParams = roomParams.extend({ turnId: z.string().min(1).max(200) });

export const turnUrl = (ctx: AppContext, roomId: string, turnId: string) =>
  `${ctx.config.baseUrl}/rooms/${roomId}/turns/${encodeURIComponent(turnId)}`;

/** Rooms, messages to an agent and their turns (streams are at /agents/stream, api/roomStream.ts). */
export const rooms: Feature = {
  name: 'rooms',
  operations: [
    defineOperation({
      name: 'rooms.prompt',
      access: { level: 'write', app: 'core', inTurns: 'never' },
      output: promptAnswerSchema,
      handler: async (ctx, { team, principal, agentId: connected, callerTeamId }, { agentId, ...input }) => {
        // The connected agent is the connection's own; an agent named in the path must be the team's.
        if (agentId !== connected && !(await findAgent(ctx.db, team.id, agentId))) throw notFound('Agent');
        return promptAgent(ctx, team, principal, agentId, input, callerTeamId);
      },
      http: {
        method: 'post',
        path: '/agents/{agentId}/messages',
        tag,
        summary: 'Say something to an agent and wait (up to waitSeconds) for its reply',
        description:
          'Posts the message to a room (roomId, else your own room with the agent) and runs a turn. 200 with the ' +
          'reply when the turn ended within waitSeconds; else 202 with the turn so far, its URL (Location) and a ' +
          'stream URL to follow it live.',
        status: 202,
        answer: 'The turn goes on: follow streamUrl or poll Location',
        params: z.object({ agentId: z.string() }),
        body: { schema: promptSchema },
        location: (answer, ctx) => turnUrl(ctx, answer.roomId, answer.turnId),
        reply: (answer, ctx) =>
          answer.status === 'completed' || answer.status === 'failed'
            ? { status: 200, body: answer }
            : { status: 202, body: answer, headers: { Location: turnUrl(ctx, answer.roomId, answer.turnId) } },
        otherAnswers: { 200: [promptAnswerSchema, 'The turn ended: reply (or error) included'] },
      },
      mcp: {
        name: 'prompt_agent',
        title: 'Prompt the agent',
        description:
          'Says something to the connected agent and waits (waitSeconds, default 25) for its reply, which may use ' +
          "tools. Pass roomId to continue a conversation (default: your own room with this agent; the answer's " +
          'roomId continues it). If the reply is not ready in time, answers status running/waiting_approval with ' +
          'turnId and a streamUrl (Server-Sent Events) to follow; a sensitive write the agent makes may wait for a ' +
          "person's approval (turn.pendingApprovals).",
        input: promptSchema,
        toInput: (args: PromptInput, caller) => ({ ...args, agentId: connectedAgent(caller) }),
      },
    }),
    defineOperation({
      name: 'rooms.open',
      access: { level: 'write', app: 'core' },
      output: openedRoomSchema,
      handler: (ctx, { team, principal }, input) => openRoom(ctx, team.id, principal, input),
      http: {
        method: 'post',
        path: '/rooms',
        tag,
        summary: 'Create or reuse a room, and get a key to stream it (the same as POST /mcp/rooms)',
        status: 201,
        answer: 'A new room, with its key',
        body: { schema: openRoomSchema, optional: true },
        reply: (opened) => ({ status: opened.created ? 201 : 200, body: opened }),
        otherAnswers: { 200: [openedRoomSchema, 'An existing room, with a new key'] },
      },
    }),
    defineOperation({
      name: 'rooms.list',
      access: { level: 'read', app: 'core' },
      input: roomListQuerySchema,
      output: pageSchema(roomSchema),
      handler: (ctx, { team }, query) => listRooms(ctx.db, team.id, query),
      http: {
        method: 'get',
        path: '/rooms',
        tag,
        summary: "The team's rooms, newest first (optionally one agent's)",
        status: 200,
        answer: 'A page of rooms',
        query: roomListQuerySchema,
      },
      mcp: {
        name: 'list_rooms',
        title: 'List rooms',
        description:
          "The team's rooms (conversations with its agents), newest first, optionally one agent's; a page at a time " +
          '(pass pagination.nextCursor back as cursor).',
      },
    }),
    defineOperation({
      name: 'rooms.listKeys',
      access: { level: 'read', app: 'core' },
      input: roomKeyListQuerySchema.extend({ roomId: id('room') }),
      output: pageSchema(roomKeySchema),
      handler: async (ctx, { team }, { roomId, ...query }) =>
        listRoomKeys(ctx.db, (await teamRoom(ctx.db, team.id, roomId)).id, query),
      http: {
        method: 'get',
        path: '/rooms/{roomId}/keys',
        tag,
        summary: "A room's stream keys, newest first: status and expiry, never the key itself",
        status: 200,
        answer: 'A page of keys',
        params: roomParams,
        query: roomKeyListQuerySchema,
      },
      mcp: {
        name: 'list_room_keys',
        title: "List a room's stream keys",
        description:
          "A room's stream keys (from POST /mcp/rooms and prompt_agent's streamUrl), newest first: id, status " +
          '(active, expired, revoked), createdAt, expiresAt, revokedAt; never the key itself. Optionally one status.',
      },
    }),
    defineOperation({
      name: 'rooms.revokeKey',
      access: { level: 'write', app: 'core' },
      output: roomKeySchema,
      handler: async (ctx, { team }, { roomId, keyId }) =>
        revokeRoomKey(ctx.db, (await teamRoom(ctx.db, team.id, roomId)).id, keyId),
      http: {
        method: 'delete',
        path: '/rooms/{roomId}/keys/{keyId}',
        tag,
        summary: 'Revoke one stream key: its open streams end within seconds, its next connect is 401',
        status: 200,
        answer: 'The revoked key (repeating is harmless)',
        params: roomParams.extend({ keyId: z.string().min(1).max(100) }),
      },
    }),
    defineOperation({
      name: 'rooms.revokeAllKeys',
      access: { level: 'write', app: 'core' },
      output: revokedKeysSchema,
      handler: async (ctx, { team }, { roomId }) =>
        revokeAllRoomKeys(ctx.db, (await teamRoom(ctx.db, team.id, roomId)).id),
      http: {
        method: 'delete',
        path: '/rooms/{roomId}/keys',
        tag,
        summary: "Revoke every active stream key of a room (the room's streams end within seconds)",
        status: 200,
        answer: 'How many keys were revoked',
        params: roomParams,
      },
    }),
    // One tool for both revocations above: one key (keyId), or every active key of the room.
    defineOperation({
      name: 'rooms.revokeKeys',
      // Credentials are a person's or a client's to manage, not a turn's.
      access: { level: 'write', app: 'core', inTurns: 'never' },
      input: z.strictObject({
        roomId: id('room'),
        keyId: z.string().min(1).max(100).optional().describe('One key; leave out to revoke every active key'),
      }),
      output: z.union([roomKeySchema, revokedKeysSchema]),
      handler: async (ctx, { team }, { roomId, keyId }) => {
        const room = await teamRoom(ctx.db, team.id, roomId);
        return keyId ? revokeRoomKey(ctx.db, room.id, keyId) : revokeAllRoomKeys(ctx.db, room.id);
      },
      mcp: {
        name: 'revoke_room_keys',
        title: 'Revoke room stream keys',
        description:
          'Revokes one stream key of a room (keyId, from list_room_keys or the keyId POST /mcp/rooms answered), or ' +
          'every active key of the room (no keyId). Streams opened with a revoked key end within seconds and the ' +
          'key is refused (401) from then on. Answers the key, or { revoked: <count> }.',
      },
    }),
    defineOperation({
      name: 'rooms.messages',
      access: { level: 'read', app: 'core' },
      input: messageListQuerySchema.extend({ roomId: id('room') }),
      output: pageSchema(messageSchema),
      handler: async (ctx, { team }, { roomId, ...query }) =>
        listRoomMessages(ctx.db, (await teamRoom(ctx.db, team.id, roomId)).id, query),
      http: {
        method: 'get',
        path: '/rooms/{roomId}/messages',
        tag,
        summary: "A room's transcript, a page at a time (oldest first unless order=desc)",
        status: 200,
        answer: 'A page of messages',
        params: roomParams,
        query: messageListQuerySchema,
      },
      mcp: {
        name: 'get_room_messages',
        title: 'Read a room',
        description:
          "A room's transcript (user, assistant and tool messages with their tool calls), oldest first unless " +
          'order "desc", a page at a time.',
      },
    }),
    defineOperation({
      name: 'rooms.turn',
      access: { level: 'read', app: 'core' },
      output: turnSchema,
      handler: async (ctx, { team }, { roomId, turnId }) => {
        const turn = await getTurn(ctx, team.id, turnId, { withProgress: true });
        if (turn.roomId !== roomId) throw notFound('Turn');
        return turn;
      },
      http: {
        method: 'get',
        path: '/rooms/{roomId}/turns/{turnId}',
        tag,
        summary: 'A turn: status, reply, tokens, the approvals it waits on, and (while it runs) its progress',
        status: 200,
        answer: 'The turn',
        params: turnParams,
      },
    }),
    defineOperation({
      name: 'rooms.cancelTurn',
      access: { level: 'write', app: 'core' },
      output: turnSchema,
      handler: (ctx, { team }, { roomId, turnId }) => cancelRunningTurn(ctx, team.id, roomId, turnId),
      http: {
        method: 'post',
        path: '/rooms/{roomId}/turns/{turnId}/cancel',
        tag,
        summary:
          'Cancel the turn running now (a stuck model call or an approval nobody gives): it ends failed, turn_cancelled',
        status: 202,
        answer: 'The turn as it was; it ends within moments (read it again)',
        params: turnParams,
        errors: [409, 503],
      },
    }),
  ],
};
