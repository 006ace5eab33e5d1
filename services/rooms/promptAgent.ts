import type { Knex } from 'knex';
import { z } from 'zod';
import type { Principal } from '../identity/principal';
import type { AppContext, TeamRef } from '../platform/context';
import { notFound } from '../platform/errors';
import { MESSAGE_MAX_CHARS, postMessage, TurnNotBound } from './messages';
import { issueRoomKey } from './roomKeys';
import { findOrCreateRoom, RoomRow, streamUrl, teamRoom } from './rooms';
import { turnSchema, waitForTurn } from './turns';

/** A stream link handed out in passing is valid 24 h (or ROOM_KEY_TTL_SECONDS, when shorter). */
const passingKeyTtl = (ctx: AppContext) => Math.min(24 * 3600, ctx.config.ROOM_KEY_TTL_SECONDS);

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
 * An outside caller's one room with an agent, keyed by its team and itself: two callers never
 * share a conversation, and the agent's team sees each of them apart (rooms.caller_team_id).
 */
const outsideRoomName = (callerTeamId: string, principal: Principal) =>
  `outside:${callerTeamId}:${ownRoomName(principal)}`;

/**
 * An outside caller's room, looked up (not created) and the `roomId` it named checked: all that
 * can refuse its call, done before it pays. `key` names the caller exactly (its room's name).
 */
export async function outsideCallerRoom(
  ctx: AppContext,
  agentId: string,
  callerTeamId: string,
  principal: Principal,
  roomId: string | undefined,
): Promise<{ key: string; room: RoomRow | undefined }> {
  const key = outsideRoomName(callerTeamId, principal);
  const room: RoomRow | undefined = await ctx.db('rooms').where({ agent_id: agentId, name: key }).first();
  if (roomId && roomId !== room?.id) throw notFound('Room');
  return { key, room };
}

/** What a payment bought (services/payments/gate.ts › HeldPayment): its turn, once posted. */
export interface PaidTurn {
  turnId: string | null;
  bindTurn(trx: Knex.Transaction, turnId: string, replacing: string | null): Promise<boolean>;
  boundTurn(): Promise<string | null>;
}

/** A turn whose message was kept but that Temporal never received (failUnqueuedTurn): nothing ran. */
const neverQueued = (turn: { status: string; error: { error?: { code?: string } } | null }) =>
  turn.status === 'failed' && turn.error?.error?.code === 'temporal_unavailable';

/**
 * `prompt_agent` of an outside caller, once cleared (and paid): its own room (created now if it
 * is the first call), the message posted with its turn bound to the payment in one transaction.
 * A payment presented again answers the turn it bought instead (the new message is not posted),
 * or posts this message if it bought none yet (its first request failed after settling, or its
 * turn never reached Temporal).
 */
export async function promptAsOutsider(
  ctx: AppContext,
  team: TeamRef,
  principal: Principal,
  agentId: string,
  callerTeamId: string,
  input: PromptInput,
  paid: PaidTurn,
): Promise<PromptAnswer> {
  const name = outsideRoomName(callerTeamId, principal);
  const { room } = await findOrCreateRoom(ctx.db, team.id, agentId, name, principal.userId, callerTeamId);
  let turnId = paid.turnId;
  for (let attempt = 0; ; attempt++) {
    let replacing: string | null = null;
    if (turnId) {
      const turn = await ctx
        .db('room_turns')
        .where({ id: turnId, room_id: room.id })
        .first('id', 'message_id', 'status', 'error');
      if (turn && !neverQueued(turn)) return answerTurn(ctx, team, room, turn.id, turn.message_id, input.waitSeconds);
      replacing = turnId;
    }
    try {
      const posted = await postMessage(ctx, team, room, input.message, principal.userId, (trx, id) =>
        paid.bindTurn(trx, id, replacing),
      );
      return answerTurn(ctx, team, room, posted.turnId, posted.messageId, input.waitSeconds);
    } catch (err) {
      // Another request of this caller bound a turn to the payment first: answer that one.
      if (!(err instanceof TurnNotBound) || attempt >= 2) throw err;
      turnId = await paid.boundTurn();
    }
  }
}

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
  /** A caller of another team (a public agent): only its own room, never one of the team's. */
  callerTeamId?: string,
): Promise<PromptAnswer> {
  if (callerTeamId) {
    await outsideCallerRoom(ctx, agentId, callerTeamId, principal, input.roomId);
    return promptAsOutsider(ctx, team, principal, agentId, callerTeamId, input, unpaid);
  }
  let room: RoomRow;
  if (input.roomId) {
    room = await teamRoom(ctx.db, team.id, input.roomId);
    if (room.agent_id !== agentId) throw notFound('Room');
  } else room = (await findOrCreateRoom(ctx.db, team.id, agentId, ownRoomName(principal), principal.userId)).room;

  const posted = await postMessage(ctx, team, room, input.message, principal.userId);
  return answerTurn(ctx, team, room, posted.turnId, posted.messageId, input.waitSeconds);
}

/** Nothing paid, nothing to bind. */
const unpaid: PaidTurn = { turnId: null, bindTurn: async () => true, boundTurn: async () => null };

/** Waits up to `waitSeconds` for a turn and answers it: the reply, or the turn so far and its stream URL. */
async function answerTurn(
  ctx: AppContext,
  team: TeamRef,
  room: RoomRow,
  turnId: string,
  messageId: string,
  waitSeconds: number,
): Promise<PromptAnswer> {
  const turn = await waitForTurn(ctx, team.id, room.id, turnId, waitSeconds * 1000);
  const ended = turn.status === 'completed' || turn.status === 'failed';
  return {
    roomId: room.id,
    turnId: turn.id,
    messageId,
    status: turn.status,
    reply: turn.reply?.content ?? null,
    turn,
    streamUrl: ended ? null : streamUrl(ctx, room.id, (await issueRoomKey(ctx.db, room.id, passingKeyTtl(ctx))).key),
  };
}
