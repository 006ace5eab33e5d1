import { z } from 'zod';
import { APPS } from '../agents/apps';
import type { AppContext, TeamRef } from '../platform/context';
import { AppError, notFound } from '../platform/errors';
import { newId } from '../../db/ids';
import { keysetPage, pageQuerySchema } from '../platform/pagination';
import type { PrivateWarpRow } from './privateWarps';

/**
 * Private apps (docs/WARPS.md › Private apps): a team's private warps bundled under a slug and
 * served at `{mcp_url}/apps/{appSlug}`, where `tools/list` is those warps (each a tool whose
 * arguments are the warp's inputs) and calling one runs it through `execute`.
 */

/**
 * Slugs of native apps, installed or to come (the spec names Board, Shop, Forms, Automations):
 * `/mcp/apps/{slug}` serves the native app, so a private app cannot take one.
 */
const RESERVED = new Set([...Object.keys(APPS), 'board', 'shop', 'forms', 'automations', 'hooks', 'studio']);

export const privateAppCreateSchema = z.strictObject({
  slug: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'a slug is 2-63 lower-case letters, digits and dashes')
    .describe('Its address: {mcp_url}/apps/<slug>'),
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().max(2000).optional(),
  warps: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(50)
    .refine((names) => new Set(names).size === names.length, 'each warp once')
    .describe("Names of the team's private warps (list_private_warps), in the order tools/list shows them"),
});
export type PrivateAppCreate = z.infer<typeof privateAppCreateSchema>;

export const privateAppSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  warps: z.array(z.string()),
  /** Its MCP endpoint. */
  url: z.url(),
  createdAt: z.iso.datetime(),
});
export type PrivateAppJson = z.infer<typeof privateAppSchema>;

/** What creating one answers: the app, and whether this call created it (false: a retry found it). */
export const privateAppCreatedSchema = z.object({ app: privateAppSchema, created: z.boolean() });

interface PrivateAppRow {
  seq: number;
  id: string;
  team_id: string;
  slug: string;
  name: string;
  description: string | null;
  warp_ids: string[];
  created_at: Date;
}

async function present(ctx: AppContext, rows: PrivateAppRow[]): Promise<PrivateAppJson[]> {
  const ids = [...new Set(rows.flatMap((r) => r.warp_ids))];
  const names = new Map<string, string>(
    ids.length
      ? (await ctx.db('private_warps').whereIn('id', ids).select('id', 'name')).map(
          (w: { id: string; name: string }) => [w.id, w.name],
        )
      : [],
  );
  return rows.map((row) => ({
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    warps: row.warp_ids.map((id) => names.get(id)!).filter(Boolean),
    url: `${ctx.config.mcpEndpoint}/apps/${row.slug}`,
    createdAt: row.created_at.toISOString(),
  }));
}

/**
 * `create_private_app` / `POST /private-apps`. Its warps must be the team's (422
 * `unknown_private_warp`). Created again with the same slug, name and warps it answers the app
 * (`created: false`), so a retry is safe; a slug taken otherwise, or a native app's, is 409.
 */
export async function createPrivateApp(
  ctx: AppContext,
  team: TeamRef,
  userId: string | null,
  input: PrivateAppCreate,
): Promise<z.infer<typeof privateAppCreatedSchema>> {
  if (RESERVED.has(input.slug))
    throw new AppError('conflict', `${input.slug} is a native app's slug; choose another`, { slug: input.slug });
  const warps: Pick<PrivateWarpRow, 'id' | 'name'>[] = await ctx
    .db('private_warps')
    .where({ team_id: team.id })
    .whereIn('name', input.warps)
    .select('id', 'name');
  const missing = input.warps.filter((name) => !warps.some((w) => w.name === name));
  if (missing.length)
    throw new AppError('unknown_private_warp', `Not private warps of this team: ${missing.join(', ')}`, {
      warps: missing,
    });
  const warpIds = input.warps.map((name) => warps.find((w) => w.name === name)!.id);
  const [inserted] = await ctx
    .db('private_apps')
    .insert({
      id: newId('pa'),
      team_id: team.id,
      slug: input.slug,
      name: input.name,
      description: input.description ?? null,
      warp_ids: warpIds,
      created_by: userId,
    })
    .onConflict(['team_id', 'slug'])
    .ignore()
    .returning('*');
  if (inserted) return { app: (await present(ctx, [inserted]))[0], created: true };
  const existing: PrivateAppRow = await ctx.db('private_apps').where({ team_id: team.id, slug: input.slug }).first();
  const same =
    existing.name === input.name &&
    (existing.description ?? undefined) === input.description &&
    existing.warp_ids.join(',') === warpIds.join(',');
  if (!same)
    throw new AppError('conflict', `The team already has a private app at ${input.slug}`, { slug: input.slug });
  return { app: (await present(ctx, [existing]))[0], created: false };
}

export const privateAppListQuerySchema = pageQuerySchema;

export async function listPrivateApps(ctx: AppContext, teamId: string, page: z.infer<typeof pageQuerySchema>) {
  const listed = await keysetPage(
    ctx.db('private_apps').where({ team_id: teamId }).select('*'),
    page,
    (row: PrivateAppRow) => row,
    { newestFirst: true },
  );
  return { ...listed, data: await present(ctx, listed.data) };
}

export async function deletePrivateApp(ctx: AppContext, teamId: string, slug: string): Promise<void> {
  const deleted = await ctx.db('private_apps').where({ team_id: teamId, slug }).delete();
  if (!deleted) throw notFound('Private app');
}

/** What `/mcp/apps/{slug}` serves for a private app: its warps in order (undefined: the team has no such app). */
export async function privateAppWarps(
  ctx: AppContext,
  teamId: string,
  slug: string,
): Promise<PrivateWarpRow[] | undefined> {
  const app: PrivateAppRow | undefined = await ctx.db('private_apps').where({ team_id: teamId, slug }).first();
  if (!app) return undefined;
  const rows: PrivateWarpRow[] = await ctx.db('private_warps').whereIn('id', app.warp_ids).select('*');
  return app.warp_ids.map((id) => rows.find((w) => w.id === id)!).filter(Boolean);
}
