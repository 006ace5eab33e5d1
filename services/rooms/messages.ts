import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Knex } from 'knex';
import { z } from 'zod';
import { preparedOnce, type Db } from '../../db/knex';
import { startOptions, TemporalUnavailable, temporalUnavailable } from '../../temporal/client';
import { AppError } from '../platform/errors';
import { queueTurn, roomStart, type RoomWorkflow } from '../../workflows/contracts/room';
import type { AppContext, TeamRef } from '../platform/context';
import { decodeCursor, encodeCursor, Page } from '../platform/pagination';
import { newId } from '../../db/ids';
import { recordEvent } from '../events/outbox';
import { appendRoomEvents } from './roomEvents';
import type { RoomRow } from './rooms';

/** The longest message a person or a client may post (a model's context is the real bound). */
export const MESSAGE_MAX_CHARS = 20_000;

export const messageSchema = z.object({
  id: z.string(),
  seq: z.number().int(),
  role: z.enum(['user', 'assistant', 'tool']),
  content: z.string(),
  turnId: z.string().nullable(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).nullable(),
  toolCallId: z.string().nullable(),
  createdAt: z.iso.datetime(),
});
export type MessageJson = z.infer<typeof messageSchema>;

interface MessageRow {
  id: string;
  seq: number;
  role: 'user' | 'assistant' | 'tool';
  content: string;
  turn_id: string | null;
  tool_calls: { id: string; name: string; arguments: string }[] | null;
  tool_call_id: string | null;
  created_at: Date;
}

const presentMessage = (row: MessageRow): MessageJson => ({
  id: row.id,
  seq: row.seq,
  role: row.role,
  content: row.content,
  turnId: row.turn_id,
  toolCalls: row.tool_calls,
  toolCallId: row.tool_call_id,
  createdAt: row.created_at.toISOString(),
});

/** Allocates the next message sequence of a room (under its row lock, so messages keep one order). */
export async function nextMessageSeq(db: Db, roomId: string): Promise<number> {
  const [row] = await db('rooms')
    .where({ id: roomId })
    .increment('last_message_seq', 1)
    .returning<{ last_message_seq: number }[]>('last_message_seq');
  return row.last_message_seq;
}

/**
 * A person's message and the turn it queues, in one statement: the room's next sequence (under
 * its row lock), the message, and the turn, whose id `<roomId>:<seq>` is formed here and nowhere
 * else: three statements would be three round trips between the message and the model. Answers
 * the turn's id.
 */
async function insertMessageAndTurn(
  trx: Knex.Transaction,
  m: { roomId: string; teamId: string; messageId: string; content: string; authorUserId: string | null },
): Promise<string> {
  const { rows } = await preparedOnce(
    trx.raw<{ rows: { turn_id: string }[] }>(
      `WITH next AS (
         UPDATE rooms SET last_message_seq = last_message_seq + 1 WHERE id = :roomId
         RETURNING last_message_seq AS seq, id || ':' || last_message_seq AS turn_id
       ), message AS (
         INSERT INTO room_messages (id, room_id, team_id, seq, role, content, turn_id, author_user_id)
         SELECT :messageId, :roomId, :teamId, next.seq, 'user', :content, next.turn_id, :authorUserId
         FROM next
       ), turn AS (
         INSERT INTO room_turns (id, room_id, team_id, message_id, message_seq, author_user_id, status)
         SELECT next.turn_id, :roomId, :teamId, :messageId, next.seq, :authorUserId, 'queued'
         FROM next
       )
       SELECT turn_id FROM next`,
      m,
    ),
  );
  return rows[0].turn_id;
}

export interface PostedMessage {
  messageId: string;
  turnId: string;
}

/** `postMessage`'s `bind` said no (a payment bound another turn first): nothing was posted. */
export class TurnNotBound extends Error {
  constructor() {
    super('Another request bound a turn first; nothing was posted');
  }
}

/**
 * A person's (or a client's) message: written to the transcript with its queued turn and its
 * `message.created` event in one transaction, then handed to the room's workflow. If Temporal
 * never gets it, the turn is failed on the stream rather than left queued forever. `bind`, in the
 * same transaction, ties the turn to what paid for it; false rolls the message back (TurnNotBound).
 *
 * In an outside caller's room (`rooms.caller_team_id`) the `user.message` event carries
 * `callerTeamId`: outbound webhooks hear it flagged, and the team's internal hooks do not run on it.
 */
export async function postMessage(
  ctx: AppContext,
  team: TeamRef,
  room: RoomRow,
  content: string,
  authorUserId: string | null,
  bind?: (trx: Knex.Transaction, turnId: string) => Promise<boolean>,
): Promise<PostedMessage> {
  const posted = await ctx.db.transaction(async (trx) => {
    const messageId = newId('msg');
    const turnId = await insertMessageAndTurn(trx, {
      roomId: room.id,
      teamId: team.id,
      messageId,
      content,
      authorUserId,
    });
    await appendRoomEvents(trx, room.id, [
      { type: 'message.created', data: { messageId, role: 'user', content, turnId } },
    ]);
    await recordEvent(trx, {
      teamId: team.id,
      type: 'user.message',
      subject: messageId,
      data: {
        roomId: room.id,
        agentId: room.agent_id,
        turnId,
        messageId,
        content,
        ...(room.caller_team_id && { callerTeamId: room.caller_team_id }),
      },
    });
    if (bind && !(await bind(trx, turnId))) throw new TurnNotBound();
    return { messageId, turnId };
  });
  const queue = () =>
    ctx.temporal.call((client) =>
      client.workflow.executeUpdateWithStart(queueTurn, {
        args: [{ turnId: posted.turnId }],
        updateId: posted.turnId,
        startWorkflowOperation: new WithStartWorkflowOperation<RoomWorkflow>(roomStart.name, {
          ...startOptions(
            roomStart,
            { roomId: room.id, teamSlug: team.slug },
            { team, staticSummary: `Room ${room.id} "${room.name}" of agent ${room.agent_id} (team ${team.slug})` },
            ctx.temporal.taskQueue,
          ),
          workflowIdConflictPolicy: roomStart.idConflictPolicy,
        }),
      }),
    );
  try {
    // A room that closed (idle) just as the message came refuses it; a second Update-with-Start starts it anew.
    await queue().catch((err: unknown) => {
      if (err instanceof WorkflowUpdateFailedError) return queue();
      throw err;
    });
  } catch (err) {
    // Temporal has it but did not answer in time (no worker took it yet): the turn stays queued and
    // runs when one does; the client follows it like any other, and a retry would only post twice.
    if (err instanceof TemporalUnavailable && !err.neverReached) return posted;
    await failUnqueuedTurn(ctx.db, room.id, posted.turnId);
    throw err instanceof AppError ? err : temporalUnavailable({ roomId: room.id, turnId: posted.turnId }, true);
  }
  return posted;
}

/** A turn Temporal never received: failed, and said so on the stream. */
async function failUnqueuedTurn(db: Db, roomId: string, turnId: string): Promise<void> {
  const error = {
    error: {
      code: 'temporal_unavailable',
      message: 'The message was kept but its turn could not be started; post again',
    },
  };
  await db.transaction(async (trx) => {
    const moved = await trx('room_turns')
      .where({ id: turnId, status: 'queued' })
      .update({ status: 'failed', error: JSON.stringify(error), completed_at: trx.fn.now() });
    if (moved) await appendRoomEvents(trx, roomId, [{ type: 'turn.failed', data: { turnId, ...error } }]);
  });
}

export const messageListQuerySchema = z.object({
  cursor: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  order: z.enum(['asc', 'desc']).default('asc').describe('asc: oldest first (a transcript); desc: newest first'),
});

/** A room's transcript a page at a time. */
export async function listRoomMessages(
  db: Db,
  roomId: string,
  query: z.infer<typeof messageListQuerySchema>,
): Promise<Page<MessageJson>> {
  const after = decodeCursor(query.cursor);
  const rows: MessageRow[] = await db('room_messages')
    .where({ room_id: roomId })
    .modify((q) => {
      if (after !== null) q.where('seq', query.order === 'asc' ? '>' : '<', after);
    })
    .orderBy('seq', query.order)
    .limit(query.limit + 1)
    .select('id', 'seq', 'role', 'content', 'turn_id', 'tool_calls', 'tool_call_id', 'created_at');
  const more = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  return {
    data: page.map(presentMessage),
    pagination: { nextCursor: more ? encodeCursor(page[page.length - 1].seq) : null, limit: query.limit },
  };
}
