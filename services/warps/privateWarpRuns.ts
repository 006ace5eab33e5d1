import {
  privateWarpStart,
  privateWarpWorkflowId,
  type PrivateWarpStep,
  type StepCondition,
  type StepOutcome,
} from '../../workflows/contracts/privateWarp';
import type { ErrorBody } from '../../workflows/contracts/errorBody';
import type { ExecutionStatus } from '../../workflows/contracts/execution';
import type { Principal } from '../identity/principal';
import { executionUrl, failUnstartedExecution, updateExecution } from '../deliveries/warpExecutions';
import type { AppContext, TeamRef } from '../platform/context';
import { AppError, errorBody, validationError } from '../platform/errors';
import { newId } from '../../db/ids';
import { promptAgent } from '../rooms/promptAgent';
import {
  inputsSchema,
  lookup,
  mapValue,
  outputName,
  walk,
  type PrivateWarpRow,
  type Scope,
  type StepCatalog,
} from './privateWarps';
import type { WarpCall } from './warpKit';

/**
 * A private warp's run (its definition: ./privateWarps.ts): `execute` starts the workflow
 * `private-warp-<executionId>`, whose activities read the run's state from its rows, run one
 * step at a time and settle the execution.
 */

export { privateWarpWorkflowId };

/** `execute` of a private warp: checks the inputs, opens the execution and starts `private-warp-<executionId>`. */
export async function startPrivateWarp(call: WarpCall, row: PrivateWarpRow, rawInputs: unknown) {
  const { ctx, team } = call;
  const parsed = inputsSchema(row).safeParse(rawInputs ?? {});
  if (!parsed.success) throw validationError(parsed.error, `inputs of ${row.name}`);
  const executionId = call.executionId ?? newId('wx');
  const workflowId = privateWarpWorkflowId(executionId);
  // A keyed retry finds the execution its first attempt opened, and Temporal refuses a second run of it.
  const opened = await ctx
    .db('warp_executions')
    .insert({
      id: executionId,
      team_id: team.id,
      agent_id: call.agent.id,
      warp: row.name,
      status: 'running',
      input: JSON.stringify({ privateWarpId: row.id, inputs: parsed.data }),
      created_by: call.principal.userId,
      workflow_id: workflowId,
    })
    .onConflict('id')
    .ignore()
    .returning('status');
  const status = opened.length
    ? 'running'
    : (await ctx.db('warp_executions').where({ id: executionId }).first('status')).status;
  const statusUrl = executionUrl(ctx.config.baseUrl, executionId);
  await ctx.temporal.startTracked(
    privateWarpStart,
    { executionId },
    {
      team,
      staticSummary: `private warp ${row.name} ${executionId} for team ${team.slug}`,
      staticDetails: `Warp execution **${executionId}**. Status: GET ${statusUrl}`,
    },
    {
      onFailure: async ({ neverReached }) =>
        neverReached && failUnstartedExecution(ctx.db, { id: executionId, created: opened.length > 0 }),
      details: { executionId },
    },
  );
  return { executionId, warp: row.name, status: status as 'running' | 'succeeded' | 'failed', statusUrl };
}

interface RunState {
  execution: { id: string; team_id: string; agent_id: string | null; created_by: string | null };
  team: TeamRef;
  warp: PrivateWarpRow;
  keys: Map<string, PrivateWarpStep>;
  scope: Scope;
}

async function loadRun(ctx: AppContext, executionId: string): Promise<RunState> {
  const execution = await ctx
    .db('warp_executions')
    .join('teams', 'teams.id', 'warp_executions.team_id')
    .where('warp_executions.id', executionId)
    .first('warp_executions.*', 'teams.slug as team_slug', 'teams.plan as team_plan');
  if (!execution) throw new Error(`Warp execution ${executionId} does not exist`);
  const warp: PrivateWarpRow = await ctx.db('private_warps').where({ id: execution.input.privateWarpId }).first();
  const all = walk(warp.steps);
  const done: { step_key: string; output: unknown }[] = await ctx
    .db('private_warp_steps')
    .where({ execution_id: executionId, status: 'succeeded' })
    .select('step_key', 'output');
  const steps: Record<string, unknown> = {};
  for (const { step_key: key, output } of done) {
    const step = all.find((s) => s.key === key)?.step;
    const name = step && outputName(key, step);
    if (name) steps[name] = output;
  }
  return {
    execution,
    team: { id: execution.team_id, slug: execution.team_slug, plan: execution.team_plan },
    warp,
    keys: new Map(all.map((s) => [s.key, s.step])),
    scope: { inputs: execution.input.inputs ?? {}, steps },
  };
}

export async function privateWarpSteps(ctx: AppContext, executionId: string): Promise<PrivateWarpStep[]> {
  return (await loadRun(ctx, executionId)).warp.steps;
}

export async function evaluateCondition(ctx: AppContext, executionId: string, stepKey: string): Promise<boolean> {
  const run = await loadRun(ctx, executionId);
  const step = run.keys.get(stepKey);
  if (!step || !('if' in step)) throw new Error(`Step ${stepKey} of ${executionId} is not a condition`);
  return holds(step.if, run.scope);
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
function holds(condition: StepCondition, scope: Scope): boolean {
  const value = lookup(condition.ref, scope);
  if ('exists' in condition && condition.exists !== undefined) return (value !== null) === condition.exists;
  if ('equals' in condition) return same(value, condition.equals);
  return !same(value, condition.notEquals);
}

/** The principal a step acts with: the agent, for the user who ran the warp (as a room turn does). */
const agentPrincipal = (executionId: string, agentId: string, userId: string | null): Principal => ({
  kind: 'agent',
  userId,
  credentialId: executionId,
  agentId,
  scopes: ['mcp:use'],
});

/**
 * One tool or prompt step, once: the step's row `<executionId>:<stepKey>` is written in the
 * transaction of the tool's own writes, so a retried activity finds it done. A prompt posts a
 * message (its own transactions), so it is claimed first: at most once.
 */
export async function runPrivateWarpStep(
  ctx: AppContext,
  catalog: StepCatalog,
  executionId: string,
  stepKey: string,
): Promise<StepOutcome> {
  const stepId = `${executionId}:${stepKey}`;
  const previous = await ctx.db('private_warp_steps').where({ id: stepId }).first('status', 'output');
  if (previous?.status === 'succeeded') return { status: 'succeeded' };
  if (previous?.status === 'failed') return { status: 'failed', error: previous.output };
  const run = await loadRun(ctx, executionId);
  const step = run.keys.get(stepKey);
  if (!step || 'wait' in step || 'if' in step) throw new Error(`Step ${stepKey} of ${executionId} runs nothing`);
  const agent = await ctx.db('agents').where({ team_id: run.team.id, id: run.execution.agent_id }).first('id', 'mode');
  const fail = async (error: ErrorBody): Promise<StepOutcome> => {
    await ctx
      .db('private_warp_steps')
      .insert({
        id: stepId,
        execution_id: executionId,
        step_key: stepKey,
        status: 'failed',
        output: JSON.stringify(error),
      })
      .onConflict('id')
      .merge(['status', 'output']);
    return { status: 'failed', error };
  };
  if (!agent) return fail(errorBody('not_found', 'The agent of this run no longer exists'));
  const principal = agentPrincipal(executionId, agent.id, run.execution.created_by);
  const call = (db: AppContext['db']): WarpCall => ({
    ctx: { ...ctx, db },
    team: run.team,
    principal,
    agent: { id: agent.id, mode: agent.mode },
  });

  if ('prompt' in step) {
    const claimed = await ctx
      .db('private_warp_steps')
      .insert({ id: stepId, execution_id: executionId, step_key: stepKey, status: 'running' })
      .onConflict('id')
      .ignore()
      .returning('id');
    if (!claimed.length)
      return fail(errorBody('prompt_interrupted', 'The prompt was posted by an earlier attempt that did not finish'));
    try {
      const answer = await promptAgent(ctx, run.team, principal, agent.id, { message: step.prompt, waitSeconds: 0 });
      await ctx
        .db('private_warp_steps')
        .where({ id: stepId })
        .update({ status: 'succeeded', output: JSON.stringify({ roomId: answer.roomId, turnId: answer.turnId }) });
      return { status: 'succeeded' };
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return fail(err.toBody());
    }
  }

  const target = catalog.find(step.tool);
  if (!target) return fail(errorBody('unknown_tool', `No tool ${step.tool}`));
  const parsed = target.input.safeParse(mapValue(step.input ?? {}, run.scope));
  if (!parsed.success) return fail(validationError(parsed.error, `input of step ${stepKey}`).toBody());
  const succeeded = (db: AppContext['db'], output: unknown) =>
    db('private_warp_steps')
      .insert({
        id: stepId,
        execution_id: executionId,
        step_key: stepKey,
        status: 'succeeded',
        output: JSON.stringify(output ?? { ok: true }),
      })
      .onConflict('id')
      .merge(['status', 'output']);
  try {
    if (target.startsWork) await succeeded(ctx.db, await target.run(call(ctx.db), parsed.data, stepId));
    else await ctx.db.transaction(async (trx) => succeeded(trx, await target.run(call(trx), parsed.data, stepId)));
    return { status: 'succeeded' };
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    return fail(err.toBody());
  }
}

/** Settles the execution; its result is every step's output by name. */
export async function finishPrivateWarp(
  ctx: AppContext,
  executionId: string,
  error: ErrorBody | null,
): Promise<ExecutionStatus> {
  const run = await loadRun(ctx, executionId);
  const status = error ? 'failed' : 'succeeded';
  await updateExecution(
    ctx.db,
    executionId,
    error ? { status, error } : { status, result: { steps: run.scope.steps } },
  );
  return status;
}
