import { listRoomMessages, messageListQuerySchema } from '../services/rooms/messages';
import { promptAgent, promptSchema } from '../services/rooms/promptAgent';
import { z } from 'zod';
import { listRoomKeys, revokeAllRoomKeys, revokeRoomKey, roomKeyListQuerySchema } from '../services/rooms/roomKeys';
import { listRooms, roomListQuerySchema, teamRoom } from '../services/rooms/rooms';
import { id, tool, Tool } from './toolKit';

/** Talking to the agent: prompt_agent and the rooms its conversations live in. */
export const roomTools: Tool[] = [
  tool({
    name: 'prompt_agent',
    title: 'Prompt the agent',
    description:
      'Says something to the connected agent and waits (waitSeconds, default 25) for its reply, which may use ' +
      "tools. Pass roomId to continue a conversation (default: your own room with this agent; the answer's " +
      'roomId continues it). If the reply is not ready in time, answers status running/waiting_approval with ' +
      'turnId and a streamUrl (Server-Sent Events) to follow; a sensitive write the agent makes may wait for a ' +
      "person's approval (turn.pendingApprovals).",
    app: 'core',
    access: 'write',
    inTurns: 'never',
    input: promptSchema,
    run: ({ ctx, team, principal, agentId, callerTeamId }, input) =>
      promptAgent(ctx, team, principal, agentId, input, callerTeamId),
  }),
  tool({
    name: 'list_rooms',
    title: 'List rooms',
    description:
      "The team's rooms (conversations with its agents), newest first, optionally one agent's; a page at a time " +
      '(pass pagination.nextCursor back as cursor).',
    app: 'core',
    access: 'read',
    input: roomListQuerySchema,
    run: ({ ctx, team }, query) => listRooms(ctx.db, team.id, query),
  }),
  tool({
    name: 'get_room_messages',
    title: 'Read a room',
    description:
      "A room's transcript (user, assistant and tool messages with their tool calls), oldest first unless " +
      'order "desc", a page at a time.',
    app: 'core',
    access: 'read',
    input: messageListQuerySchema.extend({ roomId: id('room') }),
    run: async ({ ctx, team }, { roomId, ...query }) =>
      listRoomMessages(ctx.db, (await teamRoom(ctx.db, team.id, roomId)).id, query),
  }),
  tool({
    name: 'list_room_keys',
    title: "List a room's stream keys",
    description:
      "A room's stream keys (from POST /mcp/rooms and prompt_agent's streamUrl), newest first: id, status " +
      '(active, expired, revoked), createdAt, expiresAt, revokedAt; never the key itself. Optionally one status.',
    app: 'core',
    access: 'read',
    input: roomKeyListQuerySchema.extend({ roomId: id('room') }),
    run: async ({ ctx, team }, { roomId, ...query }) =>
      listRoomKeys(ctx.db, (await teamRoom(ctx.db, team.id, roomId)).id, query),
  }),
  tool({
    name: 'revoke_room_keys',
    title: 'Revoke room stream keys',
    description:
      'Revokes one stream key of a room (keyId, from list_room_keys or the keyId POST /mcp/rooms answered), or ' +
      'every active key of the room (no keyId). Streams opened with a revoked key end within seconds and the ' +
      'key is refused (401) from then on. Answers the key, or { revoked: <count> }.',
    app: 'core',
    access: 'write',
    // Credentials are a person's or a client's to manage, not a turn's.
    inTurns: 'never',
    input: z.strictObject({
      roomId: id('room'),
      keyId: z.string().min(1).max(100).optional().describe('One key; leave out to revoke every active key'),
    }),
    run: async ({ ctx, team }, { roomId, keyId }) => {
      const room = await teamRoom(ctx.db, team.id, roomId);
      return keyId ? revokeRoomKey(ctx.db, room.id, keyId) : revokeAllRoomKeys(ctx.db, room.id);
    },
  }),
];
