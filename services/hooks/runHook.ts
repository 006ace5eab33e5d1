import type { Principal } from '../identity/principal';
import type { AppContext } from '../platform/context';
import { AppError, errorBody } from '../platform/errors';
import { executeWarp } from '../warps/execute';
import type { HookRunResult } from '../../workflows/contracts/hookRun';

/**
 * The activity of `hook-run-<runId>`: the hook's warp through the same executor as MCP `execute`,
 * acting as the hook's agent (a sensitive warp follows the agent's approval mode; every run is a
 * warp execution that check_warp_executions lists). The row is claimed (pending → running) in
 * its own commit before the warp runs, as a turn's tool ledger does: a retry that finds it
 * running knows an earlier attempt died while the warp ran, and records that instead of running
 * it a second time (docs/HOOKS.md › Exactly once).
 */
export async function runHook(ctx: AppContext, runId: string): Promise<HookRunResult> {
  const { db } = ctx;
  const claimed = await db('hook_runs')
    .where({ id: runId, status: 'pending' })
    .update({ status: 'running', updated_at: db.fn.now() })
    .returning('id');
  if (!claimed.length) {
    const row = await db('hook_runs').where({ id: runId }).first('status', 'execution_id');
    if (!row) return { status: 'failed', executionId: null };
    if (row.status !== 'running') return { status: row.status, executionId: row.execution_id };
    return settle(ctx, runId, {
      status: 'failed',
      error: errorBody(
        'interrupted',
        'The worker stopped while the warp ran; it is not run again, so that it never runs twice',
      ),
    });
  }
  const run = await db('hook_runs as r')
    .join('hooks as h', 'h.id', 'r.hook_id')
    .join('teams as t', 't.id', 'r.team_id')
    .join('agents as a', 'a.id', 'h.agent_id')
    .where('r.id', runId)
    .first('r.inputs', 'h.warp', 'h.agent_id', 'h.created_by', 't.id as team_id', 't.slug', 't.plan', 'a.mode');
  if (!run?.warp) return settle(ctx, runId, { status: 'failed', error: errorBody('not_found', 'The hook is gone') });
  const principal: Principal = {
    kind: 'agent',
    userId: run.created_by,
    credentialId: runId,
    agentId: run.agent_id,
    scopes: ['mcp:use'],
  };
  try {
    const answer = await executeWarp(
      {
        ctx,
        team: { id: run.team_id, slug: run.slug, plan: run.plan },
        principal,
        agent: { id: run.agent_id, mode: run.mode },
      },
      run.warp,
      run.inputs,
    );
    return settle(ctx, runId, { status: 'succeeded', executionId: answer.executionId });
  } catch (err) {
    // Any error once the row is claimed is the run's outcome (docs/HOOKS.md › Exactly once): the
    // warp may have opened its execution and started a send before the error (or an ambiguous
    // answer from Temporal), and a retry would run it a second time. So nothing is retried.
    const error =
      err instanceof AppError ? err.toBody() : errorBody('internal_error', String((err as Error)?.message ?? err));
    return settle(ctx, runId, { status: 'failed', error });
  }
}

async function settle(
  ctx: AppContext,
  runId: string,
  outcome: { status: 'succeeded'; executionId: string } | { status: 'failed'; error: unknown },
): Promise<HookRunResult> {
  const executionId = outcome.status === 'succeeded' ? outcome.executionId : null;
  await ctx
    .db('hook_runs')
    .where({ id: runId })
    .update({
      status: outcome.status,
      execution_id: executionId,
      error: outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
      updated_at: ctx.db.fn.now(),
    });
  return { status: outcome.status, executionId };
}
