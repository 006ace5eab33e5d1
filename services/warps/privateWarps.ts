import { z } from 'zod';
import { BusinessIdKey, JobTypeKey, TeamSlugKey } from '../../temporal/searchAttributes';
import {
  privateWarpWorkflowName,
  type PrivateWarpStep,
  type PrivateWarpWorkflow,
  type StepCondition,
  type StepOutcome,
} from '../../workflows/contracts/privateWarp';
import type { ErrorBody } from '../../workflows/contracts/errorBody';
import type { ExecutionStatus } from '../../workflows/contracts/execution';
import type { Principal } from '../identity/principal';
import { executionUrl, failUnstartedExecution, updateExecution } from '../deliveries/warpExecutions';
import type { AppContext, TeamRef } from '../platform/context';
import { AppError, errorBody, validationError } from '../platform/errors';
import { newId } from '../platform/ids';
import { keysetPage, pageQuerySchema } from '../platform/pagination';
import { promptAgent } from '../rooms/promptAgent';
import { durationSchema } from './duration';
import type { WarpCall } from './warpKit';

/**
 * Private warps: a team's own procedure, a small declared sequence of steps, validated at
 * creation and run as the workflow `private-warp-<executionId>` (docs/WARPS.md).
 *
 * Mapping: a string `"$.inputs.<name>[.<field>…]"` or `"$.steps.<stepId>[.<field>…]"` is replaced
 * by that value (null when absent); any other value is taken as it is, objects and arrays mapped
 * member by member. `<stepId>` is a step's `id`, or the index of a top-level step.
 */

/** What a tool step can call: the MCP tools and the built-in warps, by name (given by the caller, so services stay below mcp/). */
export interface StepCallable {
  name: string;
  input: z.ZodType;
  /** It starts durable work (a workflow that reads its rows): run outside a transaction, its own dedupe makes a retry safe. */
  startsWork: boolean;
  /** `idempotencyKey`: the step's id `<executionId>:<stepKey>` (a tool that starts work keys its start with it). */
  run(call: WarpCall, args: unknown, idempotencyKey: string): Promise<unknown>;
}
export interface StepCatalog {
  find(name: string): StepCallable | undefined;
  names(): string[];
}

/** Tools a private warp may not call: the warp machinery (no recursion), minting credentials, and prompting (a `prompt` step does it). */
export const NOT_CALLABLE = new Set([
  'execute',
  'create_api_token',
  'create_private_warp',
  'list_private_warps',
  'create_private_app',
  'prompt_agent',
]);

const MAX_STEPS = 50;
const MAX_DEPTH = 3;
const nameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'a name is 2-63 lower-case letters, digits and dashes')
  .describe('The warp name, e.g. "welcome-new-client"');
const stepIdSchema = z.string().regex(/^[a-z][a-zA-Z0-9_]{0,39}$/, 'a step id starts with a letter: [a-zA-Z0-9_]');
const conditionSchema = z
  .strictObject({
    ref: z.string().describe('"$.inputs.<name>…" or "$.steps.<stepId>…"'),
    equals: z.unknown().optional(),
    notEquals: z.unknown().optional(),
    exists: z.boolean().optional(),
  })
  .refine((c) => ['equals', 'notEquals', 'exists'].filter((k) => k in c).length === 1, {
    message: 'a condition has exactly one of equals, notEquals, exists',
  });

const toolStep = z.strictObject({
  id: stepIdSchema.optional(),
  tool: z.string().min(1).max(100).describe('An MCP tool or a built-in warp'),
  input: z.record(z.string(), z.unknown()).optional().describe('Its arguments; "$.…" strings are mapped'),
});
const waitStep = z.strictObject({ wait: durationSchema });
const promptStep = z.strictObject({ id: stepIdSchema.optional(), prompt: z.string().trim().min(1).max(10_000) });
const leafStep = z.union([toolStep, waitStep, promptStep]);
/** Branches nest `MAX_DEPTH` deep, spelled out (not z.lazy) so the JSON Schema and OpenAPI stay finite. */
const branching = (inner: z.ZodType) =>
  z.strictObject({
    if: conditionSchema,
    then: z.array(inner).max(MAX_STEPS),
    else: z.array(inner).max(MAX_STEPS).optional(),
  });
const depth3 = leafStep;
const depth2 = z.union([toolStep, waitStep, promptStep, branching(depth3)]);
const stepSchema = z.union([
  toolStep,
  waitStep,
  promptStep,
  branching(depth2),
]) as unknown as z.ZodType<PrivateWarpStep>;

const inputTypeSchema = z.enum(['string', 'number', 'boolean', 'object', 'array']);

export const privateWarpCreateSchema = z.strictObject({
  name: nameSchema,
  description: z.string().trim().max(2000).optional(),
  inputs: z
    .record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]{0,39}$/), inputTypeSchema)
    .default({})
    .describe('Input name → type (string, number, boolean, object, array); every input is required'),
  steps: z.array(stepSchema).min(1).max(MAX_STEPS),
});
export type PrivateWarpCreate = z.infer<typeof privateWarpCreateSchema>;

export const privateWarpSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  inputs: z.record(z.string(), inputTypeSchema),
  steps: z.array(z.unknown()),
  createdAt: z.iso.datetime(),
});
export type PrivateWarpJson = z.infer<typeof privateWarpSchema>;

interface PrivateWarpRow {
  seq: number;
  id: string;
  team_id: string;
  name: string;
  description: string | null;
  inputs: Record<string, z.infer<typeof inputTypeSchema>>;
  steps: PrivateWarpStep[];
  created_at: Date;
}

const present = (row: PrivateWarpRow & { seq?: number }): PrivateWarpJson => ({
  id: row.id,
  name: row.name,
  description: row.description,
  inputs: row.inputs,
  steps: row.steps,
  createdAt: row.created_at.toISOString(),
});

// ---------------------------------------------------------------- references

const REF = /^\$\.(inputs|steps)\.([A-Za-z0-9_]+)((?:\.[A-Za-z0-9_-]+)*)$/;
const isRef = (v: unknown): v is string => typeof v === 'string' && v.startsWith('$.');

function refsIn(value: unknown, out: string[] = []): string[] {
  if (isRef(value)) out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => refsIn(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => refsIn(v, out));
  return out;
}

interface Scope {
  inputs: Record<string, unknown>;
  steps: Record<string, unknown>;
}

function lookup(ref: string, scope: Scope): unknown {
  const m = REF.exec(ref);
  if (!m) return null;
  let value: unknown = (m[1] === 'inputs' ? scope.inputs : scope.steps)[m[2]];
  for (const part of m[3].split('.').filter(Boolean)) {
    if (value && typeof value === 'object') value = (value as Record<string, unknown>)[part];
    else return null;
  }
  return value ?? null;
}

export function mapValue(value: unknown, scope: Scope): unknown {
  if (isRef(value)) return lookup(value, scope);
  if (Array.isArray(value)) return value.map((v) => mapValue(v, scope));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapValue(v, scope)]));
  return value;
}

/** Every step with its key (`"2"`, `"3.then.0"`), in the order the workflow walks them. */
function walk(
  steps: PrivateWarpStep[],
  prefix = '',
  depth = 1,
): { key: string; step: PrivateWarpStep; depth: number }[] {
  return steps.flatMap((step, i) => {
    const key = `${prefix}${i}`;
    const here = [{ key, step, depth }];
    if (!('if' in step)) return here;
    return [
      ...here,
      ...walk(step.then, `${key}.then.`, depth + 1),
      ...walk(step.else ?? [], `${key}.else.`, depth + 1),
    ];
  });
}

/** The name a step's output is stored under: its `id`, else (top level) its index. */
const outputName = (key: string, step: PrivateWarpStep) =>
  'id' in step && step.id ? step.id : /^\d+$/.test(key) ? key : null;

// ---------------------------------------------------------------- create / list

interface Issue {
  path: string;
  message: string;
}

/** The checks a schema cannot make: tools that exist, references to inputs and earlier steps, ids once, depth. */
function checkSteps(input: PrivateWarpCreate, catalog: StepCatalog): Issue[] {
  const issues: Issue[] = [];
  const known = new Set<string>();
  const all = walk(input.steps);
  if (all.length > MAX_STEPS) issues.push({ path: 'steps', message: `at most ${MAX_STEPS} steps in all` });
  const checkRef = (ref: string, path: string) => {
    const m = REF.exec(ref);
    if (!m) {
      issues.push({ path, message: `"${ref}" is not a reference: use "$.inputs.<name>…" or "$.steps.<stepId>…"` });
      return;
    }
    if (m[1] === 'inputs' && !(m[2] in input.inputs))
      issues.push({ path, message: `"${ref}" names input ${m[2]}, which the warp does not declare` });
    if (m[1] === 'steps' && !known.has(m[2]))
      issues.push({ path, message: `"${ref}" names step ${m[2]}, which is not an earlier step's id or index` });
  };
  for (const { key, step, depth } of all) {
    const path = `steps.${key}`;
    if (depth > MAX_DEPTH) issues.push({ path, message: `branches nest at most ${MAX_DEPTH} deep` });
    if ('tool' in step) {
      const target = NOT_CALLABLE.has(step.tool) ? undefined : catalog.find(step.tool);
      if (!target) {
        issues.push({
          path: `${path}.tool`,
          message: `Unknown tool ${step.tool}; a step can call: ${catalog
            .names()
            .filter((n) => !NOT_CALLABLE.has(n))
            .join(', ')}`,
        });
      } else if (refsIn(step.input ?? {}).length === 0) {
        // Nothing mapped: the arguments are known now, so they are checked now.
        const parsed = target.input.safeParse(step.input ?? {});
        if (!parsed.success)
          for (const issue of validationError(parsed.error, 'input').details!.issues as Issue[])
            issues.push({ path: `${path}.input${issue.path ? `.${issue.path}` : ''}`, message: issue.message });
      }
      for (const ref of refsIn(step.input ?? {})) checkRef(ref, `${path}.input`);
    }
    if ('if' in step) checkRef(step.if.ref, `${path}.if.ref`);
    const name = outputName(key, step);
    if ('id' in step && step.id) {
      if (known.has(step.id)) issues.push({ path: `${path}.id`, message: `step id ${step.id} is used twice` });
    }
    if (name) known.add(name);
  }
  return issues;
}

export async function createPrivateWarp(
  ctx: AppContext,
  team: TeamRef,
  userId: string | null,
  input: PrivateWarpCreate,
  catalog: StepCatalog,
): Promise<PrivateWarpJson> {
  if (catalog.find(input.name) || NOT_CALLABLE.has(input.name))
    throw new AppError(409, 'conflict', `${input.name} is a built-in warp or tool name; choose another name`);
  const issues = checkSteps(input, catalog);
  if (issues.length)
    throw new AppError(
      422,
      'invalid_private_warp',
      `The private warp is not valid: ${issues[0].path}: ${issues[0].message}`,
      { issues },
    );
  const [row] = await ctx
    .db('private_warps')
    .insert({
      id: `pw_${newId('wx').slice(3)}`,
      team_id: team.id,
      name: input.name,
      description: input.description ?? null,
      inputs: JSON.stringify(input.inputs),
      steps: JSON.stringify(input.steps),
      created_by: userId,
    })
    .onConflict(['team_id', 'name'])
    .ignore()
    .returning('*');
  if (!row) throw new AppError(409, 'conflict', `The team already has a private warp named ${input.name}`);
  return present(row);
}

export const privateWarpListQuerySchema = pageQuerySchema;

export function listPrivateWarps(ctx: AppContext, teamId: string, page: z.infer<typeof pageQuerySchema>) {
  return keysetPage(ctx.db('private_warps').where({ team_id: teamId }).select('*'), page, present, {
    newestFirst: true,
  });
}

export async function findPrivateWarp(ctx: AppContext, teamId: string, name: string) {
  const row: PrivateWarpRow | undefined = await ctx.db('private_warps').where({ team_id: teamId, name }).first();
  return row;
}

export const privateWarpNames = (ctx: AppContext, teamId: string): Promise<string[]> =>
  ctx.db('private_warps').where({ team_id: teamId }).orderBy('name').pluck('name');

// ---------------------------------------------------------------- run

export const privateWarpWorkflowId = (executionId: string) => `private-warp-${executionId}`;

function inputsSchema(row: PrivateWarpRow) {
  const types = {
    string: z.string(),
    number: z.number(),
    boolean: z.boolean(),
    object: z.record(z.string(), z.unknown()),
    array: z.array(z.unknown()),
  };
  return z.strictObject(Object.fromEntries(Object.entries(row.inputs).map(([k, t]) => [k, types[t]])));
}

/** `execute` of a private warp: checks the inputs, opens the execution and starts `private-warp-<executionId>`. */
export async function startPrivateWarp(call: WarpCall, row: PrivateWarpRow, rawInputs: unknown) {
  const { ctx, team } = call;
  const parsed = inputsSchema(row).safeParse(rawInputs ?? {});
  if (!parsed.success) throw validationError(parsed.error, `inputs of ${row.name}`);
  const executionId = newId('wx');
  const workflowId = privateWarpWorkflowId(executionId);
  await ctx.db('warp_executions').insert({
    id: executionId,
    team_id: team.id,
    agent_id: call.agent.id,
    warp: row.name,
    status: 'running',
    input: JSON.stringify({ privateWarpId: row.id, inputs: parsed.data }),
    created_by: call.principal.userId,
    workflow_id: workflowId,
  });
  const statusUrl = executionUrl(ctx.config.baseUrl, executionId);
  await ctx.temporal.startTracked(
    (client) =>
      client.workflow.start<PrivateWarpWorkflow>(privateWarpWorkflowName, {
        workflowId,
        taskQueue: ctx.temporal.taskQueue,
        args: [{ executionId }],
        typedSearchAttributes: [
          { key: TeamSlugKey, value: team.slug },
          { key: JobTypeKey, value: 'private-warp' },
          { key: BusinessIdKey, value: executionId },
        ],
        staticSummary: `private warp ${row.name} ${executionId} for team ${team.slug}`,
        staticDetails: `Warp execution **${executionId}**. Status: GET ${statusUrl}`,
      }),
    {
      onFailure: async ({ neverReached }) =>
        neverReached && failUnstartedExecution(ctx.db, { id: executionId, created: true }),
      details: { executionId },
    },
  );
  return { executionId, warp: row.name, status: 'running' as const, statusUrl };
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
