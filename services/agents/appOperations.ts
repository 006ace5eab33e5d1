import { z } from 'zod';
import { appSchema, appSlug, installApp, listApps, uninstallApp } from './apps';
import { creditUsage, creditUsageSchema } from '../platform/credits';
import { defineOperation, Feature } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';

const tag = 'Apps and credits';
// Any string: an unknown slug is a 404 (no such app), not a 400.
const appSlugParams = z.object({ appSlug: z.string().describe('A native app: artifacts, campaigns or contacts') });

/** Native apps (what they add to the team's MCP tools) and the team's MCP credits (HTTP only). */
export const apps: Feature = {
  name: 'apps',
  operations: [
    defineOperation({
      name: 'apps.list',
      access: { level: 'read', app: 'core' },
      output: pageSchema(appSchema),
      handler: (ctx, { team }, page) => listApps(ctx.db, team.id, page),
      http: {
        method: 'get',
        path: '/apps',
        tag,
        summary: 'The native apps and which the team installed (each adds its MCP tools)',
        status: 200,
        answer: 'A page of apps, in the catalog order',
        query: pageQuerySchema,
      },
    }),
    defineOperation({
      name: 'apps.install',
      access: { level: 'write', app: 'core' },
      output: appSchema,
      handler: (ctx, { team, principal }, params) =>
        installApp(ctx.db, team.id, appSlug(params.appSlug), principal.userId),
      http: {
        method: 'put',
        path: '/apps/{appSlug}',
        tag,
        summary: "Install an app: its tools join the team's MCP tools/list (idempotent)",
        status: 200,
        answer: 'The app',
        params: appSlugParams,
      },
    }),
    defineOperation({
      name: 'apps.uninstall',
      access: { level: 'write', app: 'core' },
      output: appSchema,
      handler: (ctx, { team }, params) => uninstallApp(ctx.db, team.id, appSlug(params.appSlug)),
      http: {
        method: 'delete',
        path: '/apps/{appSlug}',
        tag,
        summary: 'Uninstall an app: its tools leave tools/list',
        status: 200,
        answer: 'The app',
        params: appSlugParams,
      },
    }),
    defineOperation({
      name: 'apps.credits',
      access: { level: 'read', app: 'core' },
      output: creditUsageSchema,
      handler: (ctx, { team }) => creditUsage(ctx.db, team, ctx.config.MCP_CREDITS),
      http: {
        method: 'get',
        path: '/credits',
        tag,
        summary: 'MCP credits of the current billing cycle (reads cost 1, writes 2)',
        status: 200,
        answer: 'The usage',
      },
    }),
  ],
};
