import { z } from 'zod';
import {
  roomProgress,
  roomWorkflowId,
  turnProgress,
  turnWorkflowId,
  type TurnProgress,
} from '../../workflows/contracts/room';
import type { AppContext } from '../platform/context';
import { errorBodySchema, notFound } from '../platform/errors';
import { executionUrl } from '../deliveries/warpExecutions';
import { roomEventHub } from './roomEventHub';

export const turnStatusSchema = z.enum(['queued', 'running', 'waiting_approval', 'completed', 'failed']);

export const turnSchema = z.object({
  id: z.string(),
  roomId: z.string(),
  status: turnStatusSchema,
  messageId: z.string(),
  reply: z.object({ messageId: z.string(), content: z.string() }).nullable(),
  error: errorBodySchema.nullable(),
  steps: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  /** Sensitive writes the turn waits on: approve or decline them like any warp execution. */
  pendingApprovals: z.array(
    z.object({ executionId: z.string(), toolCallId: z.string(), tool: z.string(), statusUrl: z.url() }),
  ),
  /** While it runs: the workflow's own account (step, tool in flight, tokens). */
  progress: z
    .object({
      status: z.string(),
      step: z.number().int(),
      toolInFlight: z.string().nullable(),
      executionId: z.string().nullable(),
      promptTokens: z.number().int(),
      completionTokens: z.number().int(),
    })
    .nullable()
    .optional(),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
});
export type TurnJson = z.infer<typeof turnSchema>;

const FINAL = ['completed', 'failed'];

/** A turn as its room's team sees it. */
export async function getTurn(
  ctx: AppContext,
  teamId: string,
  turnId: string,
  opts: { withProgress?: boolean } = {},
): Promise<TurnJson> {
  const row = await ctx.db('room_turns').where({ id: turnId, team_id: teamId }).first();
  if (!row) throw notFound('Turn');
  const [reply, approvals] = await Promise.all([
    row.reply_message_id
      ? ctx.db('room_messages').where({ id: row.reply_message_id }).first('id', 'content')
      : undefined,
    row.status === 'waiting_approval'
      ? ctx.db('tool_calls').where({ turn_id: turnId, status: 'pending_approval' }).select('id', 'name', 'execution_id')
      : [],
  ]);
  let progress: TurnProgress | null | undefined;
  if (opts.withProgress && !FINAL.includes(row.status))
    progress = (await liveProgress(ctx, row.room_id, turnId).catch(() => undefined)) ?? null;
  return {
    id: row.id,
    roomId: row.room_id,
    status: row.status,
    messageId: row.message_id,
    reply: reply ? { messageId: reply.id, content: reply.content } : null,
    error: row.error,
    steps: row.steps,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    pendingApprovals: approvals.map((a: { id: string; name: string; execution_id: string }) => ({
      executionId: a.execution_id,
      toolCallId: a.id,
      tool: a.name,
      statusUrl: executionUrl(ctx.config.baseUrl, a.execution_id),
    })),
    ...(progress !== undefined ? { progress } : {}),
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
  };
}

/**
 * Waits up to `timeoutMs` for a turn to end, woken by its room's events (and checking every
 * second besides, since a notification only wakes): answers the turn as it stands then.
 */
export async function waitForTurn(ctx: AppContext, teamId: string, roomId: string, turnId: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let wake: () => void = () => undefined;
  // Without LISTEN (the connection is down) the wait still ends: it checks every second.
  const unsubscribe = await roomEventHub(ctx)
    .subscribe(roomId, () => wake())
    .catch(() => () => undefined);
  try {
    for (;;) {
      const turn = await getTurn(ctx, teamId, turnId);
      const left = deadline - Date.now();
      if (FINAL.includes(turn.status) || left <= 0) return turn;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1_000));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    unsubscribe();
  }
}

/** Where a running turn is, from its room's `progress` (or, for a turn a room started as its child, the child's). */
async function liveProgress(ctx: AppContext, roomId: string, turnId: string): Promise<TurnProgress | null | undefined> {
  return ctx.temporal.waitUpTo(async (client) => {
    const room = await client.workflow.getHandle(roomWorkflowId(roomId)).query(roomProgress);
    if (room.current !== turnId) return null;
    return room.turn ?? (await client.workflow.getHandle(turnWorkflowId(turnId)).query(turnProgress));
  }, 2_000);
}
