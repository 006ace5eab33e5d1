import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../platform/context';
import { AppError } from '../platform/errors';
import type { HookRow } from './hookRows';
import { INBOUND_SOURCE } from './hooks';
import { queueInboundHookRuns, startHookRunsNow } from './hookRuns';

/**
 * `POST /agents/{agentUuid}/hooks?source=<source>` (docs/HOOKS.md › Inbound): the JSON payload is
 * mapped and every enabled inbound hook of the agent for that source runs its warp. The delivery
 * id (`webhook-id`, else `Idempotency-Key`, else the body's sha256) keys each hook's run, so a
 * replayed delivery runs nothing twice and answers the runs of the first.
 */

/** How long the POST waits for its runs to start their warps before answering what it has. */
const SETTLE_WAIT_MS = 5000;

export const inboundRunSchema = z.object({
  hookId: z.string(),
  runId: z.string(),
  /** The warp execution the run opened (null until it did, or when it failed before). */
  executionId: z.string().nullable(),
  /** queued (not started yet), then the execution's status, or failed (with `error`). */
  state: z.string(),
  error: z.unknown().optional(),
});
export const inboundAnswerSchema = z.object({
  source: z.string(),
  deliveryId: z.string(),
  runs: z.array(inboundRunSchema),
});
export type InboundAnswer = z.infer<typeof inboundAnswerSchema>;

export const deliveryIdOf = (headers: Record<string, unknown>, raw: Buffer): string => {
  const given = [headers['webhook-id'], headers['idempotency-key']].find(
    (v): v is string => typeof v === 'string' && v.length > 0,
  );
  if (given !== undefined) {
    if (given.length > 255)
      throw new AppError('validation_error', 'Invalid header: webhook-id / Idempotency-Key: at most 255 characters', {
        issues: [{ path: 'webhook-id', message: 'at most 255 characters', code: 'too_big' }],
      });
    return given;
  }
  return `sha256:${createHash('sha256').update(raw).digest('hex')}`;
};

async function runsOf(ctx: AppContext, runIds: string[]) {
  return ctx
    .db('hook_runs as r')
    .leftJoin('warp_executions as x', 'x.id', 'r.execution_id')
    .whereIn('r.id', runIds)
    .orderBy('r.seq')
    .select('r.id', 'r.hook_id', 'r.status', 'r.execution_id', 'r.error', 'x.status as execution_status');
}

export async function receiveInbound(
  ctx: AppContext,
  agent: { teamId: string; agentId: string },
  source: string,
  deliveryId: string,
  payload: unknown,
): Promise<InboundAnswer> {
  if (!INBOUND_SOURCE.test(source))
    throw new AppError('validation_error', 'Invalid query: source: lowercase letters, digits, . _ - (at most 64)', {
      issues: [{ path: 'source', message: 'lowercase letters, digits, . _ - (at most 64)', code: 'custom' }],
    });
  const hooks: HookRow[] = await ctx
    .db('hooks')
    .where({ team_id: agent.teamId, agent_id: agent.agentId, source: 'inbound', event: source, enabled: true })
    .orderBy('seq');
  // The source namespaces the delivery id: one id POSTed to two sources is two deliveries.
  const runIds = await queueInboundHookRuns(ctx.db, hooks, `${source}:${deliveryId}`, payload);
  if (runIds.length) {
    // Temporal away: the runs stay queued and the events dispatcher starts them when it is back.
    await startHookRunsNow(ctx.db, ctx.temporal, runIds).catch((err) =>
      ctx.logger.warn({ err }, 'inbound hook runs left for the dispatcher'),
    );
    for (let waited = 0; waited < SETTLE_WAIT_MS; waited += 100) {
      const rows = await runsOf(ctx, runIds);
      if (rows.every((r) => r.status === 'succeeded' || r.status === 'failed')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const rows = runIds.length ? await runsOf(ctx, runIds) : [];
  return {
    source,
    deliveryId,
    runs: rows.map((r) => ({
      hookId: r.hook_id,
      runId: r.id,
      executionId: r.execution_id,
      state: r.status === 'failed' ? 'failed' : (r.execution_status ?? 'queued'),
      ...(r.error ? { error: r.error } : {}),
    })),
  };
}
