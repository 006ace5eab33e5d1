import { z } from 'zod';
import type { PrivateWarpStep } from '../../workflows/contracts/privateWarp';
import type { AppContext, TeamRef } from '../platform/context';
import { AppError, validationError } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, pageQuerySchema } from '../platform/pagination';
import { durationSchema } from './duration';
import type { WarpCall } from './warpKit';

/**
 * Private warps: a team's own procedure, a small declared sequence of steps, validated at
 * creation (here) and run as the workflow `private-warp-<executionId>` (./privateWarpRuns.ts;
 * docs/WARPS.md).
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

/** Tools a private warp may not call: the warp machinery (no recursion), minting credentials or teams, and prompting (a `prompt` step does it). */
export const NOT_CALLABLE = new Set([
  'execute',
  'create_api_token',
  'create_private_warp',
  'list_private_warps',
  'create_private_app',
  'prompt_agent',
  'create_team',
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

export interface PrivateWarpRow {
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

export interface Scope {
  inputs: Record<string, unknown>;
  steps: Record<string, unknown>;
}

export function lookup(ref: string, scope: Scope): unknown {
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
export function walk(
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
export const outputName = (key: string, step: PrivateWarpStep) =>
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
    throw new AppError('conflict', `${input.name} is a built-in warp or tool name; choose another name`);
  const issues = checkSteps(input, catalog);
  if (issues.length)
    throw new AppError(
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
  if (!row) throw new AppError('conflict', `The team already has a private warp named ${input.name}`);
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

/** A private warp's inputs as a zod schema: what `execute` checks, and an app's tool takes (services/warps/privateApps.ts). */
export function inputsSchema(row: Pick<PrivateWarpRow, 'inputs'>) {
  const types = {
    string: z.string(),
    number: z.number(),
    boolean: z.boolean(),
    object: z.record(z.string(), z.unknown()),
    array: z.array(z.unknown()),
  };
  return z.strictObject(Object.fromEntries(Object.entries(row.inputs).map(([k, t]) => [k, types[t]])));
}
