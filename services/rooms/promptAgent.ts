import { z } from 'zod';
import type { Principal } from '../identity/principal';
import type { AppContext, TeamRef } from '../platform/context';
import { notFound } from '../platform/errors';
import { MESSAGE_MAX_CHARS, postMessage } from './messages';
import { findOrCreateRoom, issueRoomKey, RoomRow, streamUrl, teamRoom } from './rooms';
import { turnSchema, waitForTurn } from './turns';

/** How long a stream link handed out in passing stays valid (a room key from POST /mcp/rooms does not expire). */
const PASSING_KEY_TTL_SECONDS = 24 * 3600;

export const promptSchema = z.strictObject({
  message: z.string().trim().min(1).max(MESSAGE_MAX_CHARS).describe('What to say to the agent'),
  roomId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Continue this room (a roomId an earlier answer gave); default: your own room with this agent'),
  waitSeconds: z
    .number()
    .int()
    .min(0)
    .max(60)
    .default(25)
    .describe('How long to wait for the reply before answering with where to follow it (0: do not wait)'),
});
export type PromptInput = z.infer<typeof promptSchema>;

export const promptAnswerSchema = z.object({
  roomId: z.string(),
  turnId: z.string(),
  messageId: z.string(),
  status: turnSchema.shape.status,
  /** The agent's answer, once the turn completed within the wait. */
  reply: z.string().nullable(),
  turn: turnSchema,
  /** While the turn goes on: its stream (with a key valid for 24 h). */
  streamUrl: z.url().nullable(),
});
export type PromptAnswer = z.infer<typeof promptAnswerSchema>;

/**
 * The caller's own room with an agent when none is named: a person (or an OAuth client) keeps one
 * conversation going without tracking ids. Room names a client chooses cannot contain ":", so
 * these never collide with them.
 */
const ownRoomName = (principal: Principal) =>
  principal.kind === 'oauth' && !principal.userId
    ? `prompt:client:${principal.clientId}`
    : `prompt:user:${principal.userId}`;

/**
 * `prompt_agent` and `POST /v1/agents/{agentId}/messages`: posts the message to a room, waits up
 * to `waitSeconds` for the turn, and answers the reply, or the turn so far and its stream URL.
 */
export async function promptAgent(
  ctx: AppContext,
  team: TeamRef,
  principal: Principal,
  agentId: string,
  input: PromptInput,
): Promise<PromptAnswer> {
  let room: RoomRow;
  if (input.roomId) {
    room = await teamRoom(ctx.db, team.id, input.roomId);
    if (room.agent_id !== agentId) throw notFound('Room');
  } else room = (await findOrCreateRoom(ctx.db, team.id, agentId, ownRoomName(principal), principal.userId)).room;

  const posted = await postMessage(ctx, team, room, input.message, principal.userId);
  const turn = await waitForTurn(ctx, team.id, room.id, posted.turnId, input.waitSeconds * 1000);
  const ended = turn.status === 'completed' || turn.status === 'failed';
  return {
    roomId: room.id,
    turnId: turn.id,
    messageId: posted.messageId,
    status: turn.status,
    reply: turn.reply?.content ?? null,
    turn,
    streamUrl: ended ? null : streamUrl(ctx, room.id, await issueRoomKey(ctx.db, room.id, PASSING_KEY_TTL_SECONDS)),
  };
}
