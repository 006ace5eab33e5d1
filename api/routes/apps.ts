import { z } from 'zod';
import { appSchema, appSlug, installApp, listApps, uninstallApp } from '../../services/agents/apps';
import type { AppContext } from '../../services/platform/context';
import { creditUsage, creditUsageSchema } from '../../services/platform/credits';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import { authOf } from '../auth';
import { defineRoute, json, Route } from '../routeTable';

// Any string: an unknown slug is a 404 (no such app), not a 400.
const appSlugParams = z.object({ appSlug: z.string().describe('A native app: artifacts, campaigns or contacts') });

/** Native apps (what they add to the team's MCP tools) and the team's MCP credits. */
export function appsRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/apps',
      tag: 'Apps and credits',
      access: 'read',
      summary: 'The native apps and which the team installed (each adds its MCP tools)',
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(appSchema), 'A page of apps, in the catalog order') },
      handler: async ({ req, query }) => ({ status: 200, body: await listApps(ctx.db, authOf(req).team.id, query) }),
    }),
    defineRoute({
      method: 'put',
      path: '/apps/{appSlug}',
      tag: 'Apps and credits',
      access: 'write',
      summary: "Install an app: its tools join the team's MCP tools/list (idempotent)",
      params: appSlugParams,
      responses: { 200: json(appSchema, 'The app') },
      handler: async ({ req, params }) => {
        const { team, principal } = authOf(req);
        return { status: 200, body: await installApp(ctx.db, team.id, appSlug(params.appSlug), principal.userId) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/apps/{appSlug}',
      tag: 'Apps and credits',
      access: 'write',
      summary: 'Uninstall an app: its tools leave tools/list',
      params: appSlugParams,
      responses: { 200: json(appSchema, 'The app') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await uninstallApp(ctx.db, authOf(req).team.id, appSlug(params.appSlug)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/credits',
      tag: 'Apps and credits',
      access: 'read',
      summary: 'MCP credits of the current billing cycle (reads cost 1, writes 2)',
      responses: { 200: json(creditUsageSchema, 'The usage') },
      handler: async ({ req }) => ({
        status: 200,
        body: await creditUsage(ctx.db, authOf(req).team, ctx.config.MCP_CREDITS),
      }),
    }),
  ];
}
