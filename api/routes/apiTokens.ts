import { z } from 'zod';
import {
  apiTokenCreatedSchema,
  apiTokenCreateSchema,
  apiTokenSchema,
  createApiToken,
  listApiTokens,
  revokeApiToken,
} from '../../services/identity/apiTokens';
import type { AppContext } from '../../services/platform/context';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import { userOf } from '../auth';
import { defineRoute, json, locationHeader, Route } from '../routeTable';

/** A user's own API tokens: list, create (the token is shown once), revoke. No team header: tokens belong to the user. */
export function apiTokensRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api-tokens',
      tag: 'API tokens',
      access: 'user:read',
      summary: "List the caller's own API tokens (no team header)",
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(apiTokenSchema), 'A page of tokens (never the token itself)') },
      handler: async ({ req, query }) => ({ status: 200, body: await listApiTokens(ctx.db, userOf(req), query) }),
    }),
    defineRoute({
      method: 'post',
      path: '/api-tokens',
      tag: 'API tokens',
      access: 'user:write',
      summary: 'Create an API token for the caller; the token is in this response only',
      body: { kind: 'json', schema: apiTokenCreateSchema },
      responses: { 201: json(apiTokenCreatedSchema, 'The token (Cache-Control: no-store)', locationHeader) },
      handler: async ({ req, body }) => {
        const created = await createApiToken(ctx.db, userOf(req), body);
        return {
          status: 201,
          body: created,
          headers: { Location: `${ctx.config.baseUrl}/api-tokens/${created.id}`, 'Cache-Control': 'no-store' },
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api-tokens/{tokenId}',
      tag: 'API tokens',
      access: 'user:write',
      summary: "Revoke one of the caller's API tokens (at once; repeating is harmless)",
      params: z.object({ tokenId: z.string() }),
      responses: { 200: json(apiTokenSchema, 'The revoked token') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await revokeApiToken(ctx.db, userOf(req), params.tokenId),
      }),
    }),
  ];
}
