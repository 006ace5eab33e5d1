import { z } from 'zod';
import { requestApproval, runApprovedWrite } from '../deliveries/warps';
import { executionUrl } from '../deliveries/warpExecutions';
import type { ErrorBody } from '../../workflows/contracts/errorBody';
import { sendingAgent } from '../agents/agents';
import type { Principal } from '../identity/principal';
import type { AppContext, TeamRef } from '../platform/context';
import { AppError, ruleBroken, validationError } from '../platform/errors';
import type { ErrorCode } from '../platform/errorCatalog';
import { newId } from '../../db/ids';
import { startPrivateWarp } from './privateWarpRuns';
import { findPrivateWarp, privateWarpNames } from './privateWarps';
import { builtInWarp, builtInWarpNames } from '../catalog/warps';
import type { Warp, WarpCall } from './warpKit';

export const executeSchema = z.strictObject({
  warp: z
    .string()
    .min(1)
    .max(100)
    .describe('A built-in warp (e.g. artifact-create, svc-campaign-list) or a private warp'),
  inputs: z.record(z.string(), z.unknown()).default({}).describe("The warp's inputs"),
});

export const executeBodySchema = z.strictObject({
  inputs: z.record(z.string(), z.unknown()).default({}),
  agentId: z.string().max(100).optional().describe('The agent the warp acts as (default: the first agent)'),
});

/** What `execute` answers: the run's execution and its outcome, or `pending: true` while a person decides. */
export const executeAnswerSchema = z
  .object({
    executionId: z.string(),
    warp: z.string(),
    status: z.enum(['pending_approval', 'running', 'succeeded', 'failed']),
    pending: z.boolean().optional(),
    result: z.unknown().optional(),
    statusUrl: z.url(),
  })
  .catchall(z.unknown());

/** The agent a call acts as: the named one, else the credential's, else the team's first. */
export async function warpCallFor(
  ctx: AppContext,
  team: TeamRef,
  principal: Principal,
  agentId?: string | null,
): Promise<WarpCall> {
  const preferred = principal.kind === 'api_token' ? null : principal.agentId;
  const agent = await sendingAgent(ctx.db, team.id, agentId, preferred);
  return { ctx, team, principal, agent };
}

async function unknownWarp(ctx: AppContext, teamId: string, name: string): Promise<AppError> {
  const privateNames = await privateWarpNames(ctx, teamId);
  return new AppError(
    'unknown_warp',
    `Unknown warp ${name}; known warps: ${[...builtInWarpNames, ...privateNames].join(', ')}`,
    {
      warp: name,
      builtIn: builtInWarpNames,
      private: privateNames,
    },
  );
}

/**
 * Records a run that happened within the call (no workflow) as a settled warp execution, so
 * `check_warp_executions` lists every run. `workflow_id` is `inline:<executionId>`.
 */
async function recordInlineRun(
  call: WarpCall,
  warp: string,
  inputs: unknown,
  outcome: { status: 'succeeded'; result: unknown } | { status: 'failed'; error: unknown },
) {
  const id = call.executionId ?? newId('wx');
  await call.ctx
    .db('warp_executions')
    .insert({
      id,
      team_id: call.team.id,
      agent_id: call.agent.id,
      warp,
      status: outcome.status,
      input: JSON.stringify(inputs ?? {}),
      result: outcome.status === 'succeeded' ? JSON.stringify(outcome.result) : null,
      error: outcome.status === 'failed' ? JSON.stringify(outcome.error) : null,
      created_by: call.principal.userId,
      workflow_id: `inline:${id}`,
    })
    .onConflict('id')
    .ignore();
  return id;
}

/**
 * A keyed run's inline execution that an earlier attempt settled: answered as then (its error
 * thrown again), never run twice. Executions with a workflow of their own are found again by the
 * warp's own start (`claimExecution(…, keyed)`, a start Temporal refuses to repeat).
 */
async function settledInlineRun(call: WarpCall, warp: string) {
  if (!call.executionId) return undefined;
  const row = await call.ctx
    .db('warp_executions')
    .where({ id: call.executionId, team_id: call.team.id })
    .whereIn('status', ['succeeded', 'failed'])
    .whereLike('workflow_id', 'inline:%')
    .first('id', 'status', 'result', 'error');
  return row ? inlineAnswer(call, warp, row) : undefined;
}

function inlineAnswer(
  call: WarpCall,
  warp: string,
  row: { id: string; status: string; result: unknown; error: unknown },
): z.infer<typeof executeAnswerSchema> {
  if (row.status === 'failed') {
    const { error } = row.error as ErrorBody;
    // Only an AppError's body is recorded (below), so its code is a catalogued one and the
    // catalog gives back the status the first attempt answered with.
    throw new AppError(error.code as ErrorCode, error.message, error.details);
  }
  return {
    executionId: row.id,
    warp,
    status: row.status as 'succeeded' | 'running',
    result: row.result,
    statusUrl: executionUrl(call.ctx.config.baseUrl, row.id),
  };
}

/**
 * A keyed run's execution with a workflow of its own, opened by an earlier attempt: answered as it
 * stands, without running the warp's checks again (a delivered artifact is no longer "ready").
 * A start that never happened after the row was written reads as failed (`getExecution`).
 */
async function openedWorkflowRun(
  call: WarpCall,
  warp: string,
): Promise<z.infer<typeof executeAnswerSchema> | undefined> {
  if (!call.executionId) return undefined;
  const row = await call.ctx
    .db('warp_executions')
    .where({ id: call.executionId, team_id: call.team.id })
    .whereRaw("workflow_id NOT LIKE 'inline:%'")
    .first('id', 'status', 'result');
  if (!row) return undefined;
  const open = ['pending_approval', 'running', 'succeeded'].includes(row.status);
  return {
    executionId: row.id,
    warp,
    // Declined and expired are not an answer's statuses: the write did not happen.
    status: open ? row.status : 'failed',
    ...(row.status === 'pending_approval' ? { pending: true } : {}),
    result: row.result ?? { executionStatus: row.status },
    statusUrl: executionUrl(call.ctx.config.baseUrl, row.id),
  };
}

/**
 * A sensitive write in auto mode by a keyed run: its execution row is opened (once, by id)
 * before the write, then the write runs as an approved one does (`runApprovedWrite`): a retry
 * that finds the row still running runs it as a retry, which counts "already done" as done.
 */
async function runKeyedSensitiveWrite(call: WarpCall & { executionId: string }, warp: string, args: unknown) {
  const { ctx, executionId } = call;
  const opened = await ctx
    .db('warp_executions')
    .insert({
      id: executionId,
      team_id: call.team.id,
      agent_id: call.agent.id,
      warp,
      status: 'running',
      input: JSON.stringify(args ?? {}),
      created_by: call.principal.userId,
      workflow_id: `inline:${executionId}`,
    })
    .onConflict('id')
    .ignore()
    .returning('id');
  await runApprovedWrite(ctx, executionId, opened.length ? 1 : 2);
  const row = await ctx.db('warp_executions').where({ id: executionId }).first('id', 'status', 'result', 'error');
  return inlineAnswer(call, warp, row);
}

/** Parses a warp's inputs with its schema: a 400 `validation_error` naming the warp, with the schema's issues. */
export function parseWarpInputs(w: Warp, inputs: unknown) {
  const parsed = w.input.safeParse(inputs ?? {});
  if (!parsed.success) throw validationError(parsed.error, `inputs of ${w.name}`);
  return parsed.data;
}

/** A built-in warp, its approval path taken for an agent in manual mode; every run recorded as an execution. */
export async function runBuiltInWarp(
  call: WarpCall,
  w: Warp,
  inputs: unknown,
): Promise<z.infer<typeof executeAnswerSchema>> {
  const { ctx } = call;
  if (w.unavailable) throw ruleBroken('not_available', w.unavailable, { warp: w.name });
  const args = parseWarpInputs(w, inputs);
  if (typeof w.approval === 'object' && call.agent.mode === 'manual') {
    const caller = { team: call.team, agentId: call.agent.id, userId: call.principal.userId };
    return { ...(await requestApproval(ctx, caller, w.approval.sensitiveWrite, args, call.executionId)) };
  }
  if (w.approval === 'own-workflow') {
    const answer = (await w.run(call, args)) as { executionId: string; status: string; pending?: boolean };
    const status = answer.pending
      ? 'pending_approval'
      : answer.status === 'running'
        ? 'running'
        : (answer.status as 'succeeded' | 'failed');
    return {
      ...answer,
      warp: w.name,
      status: ['pending_approval', 'running', 'succeeded', 'failed'].includes(status) ? status : 'running',
      statusUrl: executionUrl(ctx.config.baseUrl, answer.executionId),
      result: answer,
    };
  }
  const settled = await settledInlineRun(call, w.name);
  if (settled) return settled;
  if (typeof w.approval === 'object' && call.executionId)
    return runKeyedSensitiveWrite({ ...call, executionId: call.executionId }, w.name, args);
  try {
    // A write that stays in the database commits with its record: a run cut short leaves neither,
    // and its retry (a keyed run) runs it once. One that starts work cannot wait for a commit.
    const atomic = w.approval === 'none' && !w.startsWork;
    const { result, executionId } = atomic
      ? await ctx.db.transaction(async (trx) => {
          const inTrx = { ...call, ctx: { ...ctx, db: trx } };
          const result = await w.run(inTrx, args);
          return { result, executionId: await recordInlineRun(inTrx, w.name, args, { status: 'succeeded', result }) };
        })
      : await w.run(call, args).then(async (result) => ({
          result,
          executionId: await recordInlineRun(call, w.name, args, { status: 'succeeded', result }),
        }));
    return {
      executionId,
      warp: w.name,
      status: 'succeeded',
      result,
      statusUrl: executionUrl(ctx.config.baseUrl, executionId),
    };
  } catch (err) {
    if (err instanceof AppError && err.status < 500) {
      await recordInlineRun(call, w.name, args, { status: 'failed', error: err.toBody() });
    }
    throw err;
  }
}

/** `execute` (MCP) and `POST /v1/warps/{name}/execute`: a built-in warp, else the team's private warp of that name. */
export async function executeWarp(call: WarpCall, name: string, inputs: unknown) {
  const opened = await openedWorkflowRun(call, name);
  if (opened) return opened;
  const w = builtInWarp(name);
  if (w) return runBuiltInWarp(call, w, inputs);
  const row = await findPrivateWarp(call.ctx, call.team.id, name);
  if (!row) throw await unknownWarp(call.ctx, call.team.id, name);
  return startPrivateWarp(call, row, inputs);
}
