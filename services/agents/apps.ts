import { z } from 'zod';
import type { Db } from '../../db/knex';
import { notFound } from '../platform/errors';
import { offsetPage, Page, PageQuery, pageOffset } from '../platform/pagination';

/**
 * The native apps a team can install. An installed app adds its tools to the team's MCP catalog
 * (`tools/list`); an app is offered only once its tools work.
 */
export const APPS = {
  artifacts: {
    name: 'Artifacts',
    description: 'Client deliverables: create, update, list and deliver artifacts by email, SMS or WhatsApp.',
  },
  campaigns: {
    name: 'Campaigns',
    description: 'Email, SMS, WhatsApp and push campaigns: create, preview the audience, send or schedule, stats.',
  },
  contacts: { name: 'Contacts', description: 'Contact properties and segments (saved audiences for campaigns).' },
  board: {
    name: 'Board',
    description:
      "Hooks: rules that run a warp on a platform event or an inbound POST, or send the agent's output events to a URL.",
  },
  automations: {
    name: 'Automations',
    description:
      'Journeys per contact: a trigger (an inbound webhook source, a platform event, a segment entry) and steps ' +
      '(wait, wait for an event, send, run a warp, branch, exit).',
  },
  forms: {
    name: 'Forms',
    description:
      'Hosted sign-up forms: a page at {site_url}/forms/{id} that creates or updates the contact, adds tags and ' +
      'asks for marketing consent, with double opt-in by email.',
  },
  shop: {
    name: 'Shop',
    description:
      'Products and the orders of contacts (items, amount, currency, time), by API, MCP or CSV import; orders feed ' +
      'the purchase conditions of segments.',
  },
  webhooks: {
    name: 'Webhooks',
    description:
      'Outbound webhooks: signed platform events POSTed to your endpoints, with retry settings (attempts and ' +
      'the waits between them) at /v1/webhooks/settings.',
  },
} as const;

export const appSlugSchema = z.enum(Object.keys(APPS) as [keyof typeof APPS, ...(keyof typeof APPS)[]]);
export type AppSlug = z.infer<typeof appSlugSchema>;

export const appSchema = z.object({
  slug: appSlugSchema,
  name: z.string(),
  description: z.string(),
  installed: z.boolean(),
  installedAt: z.iso.datetime().nullable(),
});
export type AppJson = z.infer<typeof appSchema>;

/** An app slug from a path: unknown slugs are 404, like any unknown resource. */
export function appSlug(raw: string): AppSlug {
  const parsed = appSlugSchema.safeParse(raw);
  if (!parsed.success) throw notFound('App');
  return parsed.data;
}

export async function installedApps(db: Db, teamId: string): Promise<Set<AppSlug>> {
  const rows: { app: string }[] = await db('team_apps').where({ team_id: teamId }).select('app');
  return installedOf(rows.map((r) => r.app));
}

/** The apps of the catalog among a team's `team_apps` rows (a retired app's row is ignored). */
export const installedOf = (apps: string[]): Set<AppSlug> => new Set(apps.filter((app): app is AppSlug => app in APPS));

/** The catalog, with what this team has installed, a page at a time (in the catalog's order). */
export async function listApps(db: Db, teamId: string, page: PageQuery): Promise<Page<AppJson>> {
  const offset = pageOffset(page);
  const apps = await catalogOf(db, teamId);
  return offsetPage(apps.slice(offset, offset + page.limit + 1), offset, page.limit, (app) => app);
}

async function catalogOf(db: Db, teamId: string): Promise<AppJson[]> {
  const rows: { app: string; installed_at: Date }[] = await db('team_apps')
    .where({ team_id: teamId })
    .select('app', 'installed_at');
  return (Object.keys(APPS) as AppSlug[]).map((slug) => {
    const row = rows.find((r) => r.app === slug);
    return { slug, ...APPS[slug], installed: Boolean(row), installedAt: row?.installed_at.toISOString() ?? null };
  });
}

const oneApp = async (db: Db, teamId: string, slug: AppSlug) =>
  (await catalogOf(db, teamId)).find((a) => a.slug === slug)!;

/** Idempotent: installing an installed app keeps its first install time. */
export async function installApp(db: Db, teamId: string, slug: AppSlug, userId: string | null): Promise<AppJson> {
  await db('team_apps')
    .insert({ team_id: teamId, app: slug, installed_by: userId })
    .onConflict(['team_id', 'app'])
    .ignore();
  return oneApp(db, teamId, slug);
}

export async function uninstallApp(db: Db, teamId: string, slug: AppSlug): Promise<AppJson> {
  await db('team_apps').where({ team_id: teamId, app: slug }).delete();
  return oneApp(db, teamId, slug);
}
