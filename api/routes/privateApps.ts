import { z } from 'zod';
import type { AppContext } from '../../services/platform/context';
import { pageSchema } from '../../services/platform/pagination';
import {
  createPrivateApp,
  deletePrivateApp,
  listPrivateApps,
  privateAppCreateSchema,
  privateAppListQuerySchema,
  privateAppSchema,
} from '../../services/warps/privateApps';
import { authOf } from '../auth';
import { defineRoute, json, noContent, Route } from '../routeTable';

const created = z.object({ app: privateAppSchema, created: z.boolean() });

/** Private apps over HTTP: `create_private_app`'s twin, and what a person needs besides (list, delete). */
export function privateAppsRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/private-apps',
      tag: 'Warps',
      access: 'read',
      summary: "The team's private apps (its private warps bundled at {mcp_url}/apps/{appSlug}), newest first",
      query: privateAppListQuerySchema,
      responses: { 200: json(pageSchema(privateAppSchema), 'A page of private apps') },
      handler: async ({ req, query }) => ({
        status: 200,
        body: await listPrivateApps(ctx, authOf(req).team.id, query),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/private-apps',
      tag: 'Warps',
      access: 'write',
      summary: 'Bundle private warps as an app served at {mcp_url}/apps/{appSlug} (create_private_app)',
      body: { kind: 'json', schema: privateAppCreateSchema },
      responses: {
        201: json(created, 'The app and its MCP url'),
        200: json(created, 'A retry: the app with this slug, name and warps already exists'),
      },
      handler: async ({ req, body }) => {
        const { team, principal } = authOf(req);
        const answer = await createPrivateApp(ctx, team, principal.userId, body);
        return { status: answer.created ? 201 : 200, body: answer };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/private-apps/{appSlug}',
      tag: 'Warps',
      access: 'write',
      summary: 'Remove a private app (its warps stay); its MCP endpoint answers 404 from now on',
      params: z.object({ appSlug: z.string().max(100) }),
      responses: { 204: noContent('Removed') },
      handler: async ({ req, params }) => {
        await deletePrivateApp(ctx, authOf(req).team.id, params.appSlug);
        return { status: 204 };
      },
    }),
  ];
}
