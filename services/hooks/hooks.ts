import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { privateWebhookUrlsAllowed } from '../../config';
import { findAgent } from '../agents/agents';
import { EVENT_TYPES } from '../events/outbox';
import type { AppContext } from '../platform/context';
import { AppError, notFound, parseOrThrow, ruleBroken } from '../platform/errors';
import { keysetPage, Page, pageQuerySchema } from '../platform/pagination';
import { builtInWarp } from '../catalog/warps';
import { checkWebhookUrl } from '../webhooks/urlGuard';
import { HOOK_SOURCES, HookJson, HookRow, hookSchema, newHookId, presentHook } from './hookRows';
import { mappingSchema } from './mapping';

/**
 * A team's hooks, per agent (spec Hook; docs/HOOKS.md): one event, a field mapping, one warp run
 * at once (internal, inbound), or one URL the agent's output events are POSTed to (web).
 */

/** The agent's own events a web hook can send: its turns' output (services/rooms) and its inbox mail. */
export const WEB_HOOK_EVENTS = ['agent.action', 'agent.message', 'user.message', 'email.received'] as const;

export const INBOUND_SOURCE = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export const hookCreateSchema = z.strictObject({
  source: z.enum(HOOK_SOURCES).describe('internal (a platform event), inbound (POSTs to the agent hooks path), web'),
  event: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .describe(
      `internal: a platform event type (${EVENT_TYPES.join(', ')}); inbound: the source name of ` +
        `?source=<name> (lowercase letters, digits, . _ -); web: ${WEB_HOOK_EVENTS.join(', ')}`,
    ),
  warp: z.string().trim().min(1).max(100).optional().describe('internal and inbound: a built-in or private warp'),
  inputs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("internal and inbound: the warp's fixed inputs (the mapped fields are added to them)"),
  mapping: mappingSchema.optional(),
  url: z.string().trim().min(1).max(2000).optional().describe('web: the https URL the events are POSTed to'),
  enabled: z.boolean().optional(),
});
export type HookCreate = z.infer<typeof hookCreateSchema>;

/** The answer of a web hook's creation: its signing secret, shown this once. */
export const hookWithSecretSchema = z.object({ hook: hookSchema, secret: z.string().optional() });

export const hookListQuerySchema = pageQuerySchema.extend({
  source: z.enum(HOOK_SOURCES).optional(),
});

export const hookToggleSchema = z.strictObject({ enabled: z.boolean() });

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export async function hookAgent(ctx: AppContext, teamId: string, agentId: string) {
  const agent = await findAgent(ctx.db, teamId, agentId);
  if (!agent) throw notFound('Agent');
  return agent;
}

/** The input names a warp declares, or null when it takes any (a loose schema). */
async function declaredInputs(ctx: AppContext, teamId: string, warp: string): Promise<string[] | null> {
  const w = builtInWarp(warp);
  if (w) {
    if (w.unavailable) throw ruleBroken('not_available', w.unavailable, { warp });
    const def = (
      w.input as unknown as { _zod?: { def?: { shape?: object; catchall?: { _zod: { def: { type: string } } } } } }
    )._zod?.def;
    if (!def?.shape || def.catchall?._zod.def.type !== 'never') return null;
    return Object.keys(def.shape);
  }
  const row = await ctx.db('private_warps').where({ team_id: teamId, name: warp }).first('inputs');
  if (!row)
    throw new AppError('unknown_warp', `Unknown warp ${warp}: not a built-in warp nor a private warp of the team`, {
      warp,
    });
  return Object.keys(row.inputs);
}

function refuse(field: string, message: string): never {
  throw new AppError('validation_error', `Invalid body: ${field}: ${message}`, {
    issues: [{ path: field, message, code: 'custom' }],
  });
}

/** The rules of one source (docs/HOOKS.md › Sources); the warp and its input names are checked against the registry. */
async function checkHook(ctx: AppContext, teamId: string, input: HookCreate): Promise<void> {
  if (input.source === 'web') {
    if (!(WEB_HOOK_EVENTS as readonly string[]).includes(input.event))
      refuse('event', `a web hook sends one of ${WEB_HOOK_EVENTS.join(', ')}`);
    if (!input.url) refuse('url', 'a web hook needs the url its events are POSTed to');
    for (const field of ['warp', 'inputs', 'mapping'] as const)
      if (input[field] !== undefined) refuse(field, 'a web hook POSTs the event as it is; it runs no warp');
    await checkWebhookUrl(input.url, { allowPrivate: privateWebhookUrlsAllowed(ctx.config) });
    return;
  }
  if (input.url !== undefined) refuse('url', `an ${input.source} hook runs a warp; only web hooks have a url`);
  if (input.source === 'internal' && !(EVENT_TYPES as readonly string[]).includes(input.event))
    refuse('event', `an internal hook listens to a platform event: ${EVENT_TYPES.join(', ')}`);
  if (input.source === 'inbound' && !INBOUND_SOURCE.test(input.event))
    refuse('event', 'an inbound source name: lowercase letters, digits, . _ - (at most 64)');
  if (!input.warp) refuse('warp', `an ${input.source} hook runs a warp`);
  const declared = await declaredInputs(ctx, teamId, input.warp);
  // The fixed inputs are known now: checked against the warp's schema (the mapped ones arrive with each event).
  const schema = builtInWarp(input.warp)?.input as unknown as { partial?: () => z.ZodType } | undefined;
  if (schema?.partial && input.inputs) parseOrThrow(schema.partial(), input.inputs, `inputs of ${input.warp}`);
  const names = [...Object.keys(input.inputs ?? {}), ...Object.keys(input.mapping ?? {})];
  const unknown = declared ? names.filter((n) => !declared.includes(n)) : [];
  if (unknown.length)
    throw ruleBroken(
      'unknown_warp_input',
      `${input.warp} has no input ${unknown.join(', ')}; its inputs: ${declared!.join(', ')}`,
      {
        warp: input.warp,
        unknown,
        inputs: declared,
      },
    );
}

/** Creates a hook of the agent; a web hook's answer carries its signing secret (this once). */
export async function createHook(
  ctx: AppContext,
  teamId: string,
  agentId: string,
  userId: string | null,
  input: HookCreate,
): Promise<z.infer<typeof hookWithSecretSchema>> {
  await hookAgent(ctx, teamId, agentId);
  await checkHook(ctx, teamId, input);
  const id = newHookId();
  const secret = input.source === 'web' ? newSecret() : undefined;
  const row: HookRow = await ctx.db.transaction(async (trx) => {
    const [inserted] = await trx('hooks')
      .insert({
        id,
        team_id: teamId,
        agent_id: agentId,
        source: input.source,
        event: input.event,
        mapping: JSON.stringify(input.mapping ?? {}),
        warp: input.warp ?? null,
        inputs: JSON.stringify(input.inputs ?? {}),
        url: input.url ?? null,
        enabled: input.enabled ?? true,
        created_by: userId,
      })
      .returning('*');
    // A web hook delivers through the outbound webhook machinery: its own endpoint, hidden from the endpoint list.
    if (secret)
      await trx('webhook_endpoints').insert({
        id: `whe_${randomBytes(12).toString('hex')}`,
        team_id: teamId,
        url: input.url,
        description: `web hook ${id}`,
        secret_encrypted: ctx.secretBox.encrypt(secret),
        headers: '{}',
        event_types: [input.event],
        enabled: inserted.enabled,
        hook_id: id,
        agent_id: agentId,
      });
    return inserted;
  });
  return { hook: presentHook(row), ...(secret ? { secret } : {}) };
}

async function hookRow(ctx: AppContext, teamId: string, agentId: string, hookId: string): Promise<HookRow> {
  const row = await ctx.db('hooks').where({ team_id: teamId, agent_id: agentId, id: hookId }).first();
  if (!row) throw notFound('Hook');
  return row;
}

export async function getHook(ctx: AppContext, teamId: string, agentId: string, hookId: string) {
  await hookAgent(ctx, teamId, agentId);
  return presentHook(await hookRow(ctx, teamId, agentId, hookId));
}

/** The agent's hooks (system-owned ones included, marked), newest first. */
export async function listHooks(
  ctx: AppContext,
  teamId: string,
  agentId: string,
  query: z.infer<typeof hookListQuerySchema>,
): Promise<Page<HookJson>> {
  await hookAgent(ctx, teamId, agentId);
  const rows = ctx.db('hooks').where({ team_id: teamId, agent_id: agentId });
  if (query.source) rows.where({ source: query.source });
  return keysetPage(rows, query, presentHook, { newestFirst: true });
}

const systemOwned = (row: HookRow) =>
  ruleBroken(
    'system_owned_hook',
    `Hook ${row.id} belongs to automation ${row.automation_id}: it follows the automation (enable, disable or delete the automation instead)`,
    { hookId: row.id, automationId: row.automation_id },
  );

export async function toggleHook(
  ctx: AppContext,
  teamId: string,
  agentId: string,
  hookId: string,
  enabled: boolean,
): Promise<HookJson> {
  await hookAgent(ctx, teamId, agentId);
  const row = await hookRow(ctx, teamId, agentId, hookId);
  if (row.system_owned) throw systemOwned(row);
  const updated = await ctx.db.transaction(async (trx) => {
    const [r] = await trx('hooks').where({ id: hookId }).update({ enabled, updated_at: trx.fn.now() }).returning('*');
    await trx('webhook_endpoints').where({ hook_id: hookId }).update({ enabled, updated_at: trx.fn.now() });
    return r;
  });
  return presentHook(updated);
}

/** Deletes the hook with its runs (and a web hook's endpoint and deliveries). */
export async function deleteHook(ctx: AppContext, teamId: string, agentId: string, hookId: string): Promise<void> {
  await hookAgent(ctx, teamId, agentId);
  const row = await hookRow(ctx, teamId, agentId, hookId);
  if (row.system_owned) throw systemOwned(row);
  await ctx.db('hooks').where({ id: hookId }).delete();
}
