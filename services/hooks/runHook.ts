import type { Principal } from '../identity/principal';
import type { AppContext } from '../platform/context';
import { AppError, errorBody } from '../platform/errors';
import { executionIdFor } from '../../db/ids';
import { executeWarp } from '../warps/execute';
import type { HookRunResult } from '../../workflows/contracts/hookRun';

/**
 * The activity of `hook-run-<runId>`: the hook's warp through the same executor as MCP `execute`,
 * acting as the hook's agent (a sensitive warp follows the agent's approval mode; every run is a
 * warp execution that check_warp_executions lists). The warp's execution id is derived from the
 * run (`executionIdFor`), so a retry after a crash or an ambiguous error finds the execution the
 * first attempt opened instead of running the warp again (docs/HOOKS.md › Runs, exactly once).
 */
export async function runHook(ctx: AppContext, runId: string): Promise<HookRunResult> {
  const { db } = ctx;
  await db('hook_runs').where({ id: runId, status: 'pending' }).update({ status: 'running', updated_at: db.fn.now() });
  const row = await db('hook_runs').where({ id: runId }).first('status', 'execution_id');
  if (!row) return { status: 'failed', executionId: null };
  if (row.status !== 'running') return { status: row.status, executionId: row.execution_id };
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
        executionId: hookRunExecutionId(runId),
      },
      run.warp,
      run.inputs,
    );
    return settle(ctx, runId, { status: 'succeeded', executionId: answer.executionId });
  } catch (err) {
    // A rule the warp broke is the run's outcome; anything else (the database, Temporal away) is
    // retried, and the retry finds the execution this attempt may have opened.
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    return settle(ctx, runId, { status: 'failed', error: err.toBody() });
  }
}

export const hookRunExecutionId = (runId: string) => executionIdFor(`hook-run:${runId}`);

/**
 * The workflow's last step when the run's activity ran out of attempts: a run still pending or
 * running is settled as failed with the last error, so it never stays open.
 */
export async function failHookRun(ctx: AppContext, runId: string, message: string): Promise<HookRunResult> {
  await ctx
    .db('hook_runs')
    .where({ id: runId })
    .whereIn('status', ['pending', 'running'])
    .update({
      status: 'failed',
      error: JSON.stringify(errorBody('internal_error', `The run failed after its retries: ${message}`)),
      updated_at: ctx.db.fn.now(),
    });
  const row = await ctx.db('hook_runs').where({ id: runId }).first('status', 'execution_id');
  return { status: row?.status ?? 'failed', executionId: row?.execution_id ?? null };
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
