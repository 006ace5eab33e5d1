import { z } from 'zod';
import {
  authKeySchema,
  authKeyWithSecretSchema,
  createAuthKey,
  listAuthKeys,
  revokeAuthKey,
} from '../../services/hooks/authKeys';
import { hookSchema } from '../../services/hooks/hookRows';
import {
  createHook,
  deleteHook,
  getHook,
  hookCreateSchema,
  hookListQuerySchema,
  hookToggleSchema,
  listHooks,
  toggleHook,
} from '../../services/hooks/hooks';
import type { AppContext } from '../../services/platform/context';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import { authOf } from '../auth';
import { defineRoute, json, locationHeader, noContent, Route } from '../routeTable';

const agentParams = z.object({ agentId: z.string().min(1).max(100) });
const hookParams = agentParams.extend({ hookId: z.string().min(1).max(100) });
const keyParams = agentParams.extend({ keyId: z.string().min(1).max(100) });
const TAG = 'Hooks';

/** An agent's hooks (the Board app's tools over HTTP) and its AGENT_AUTH_KEYs (docs/HOOKS.md). */
export function hooksRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/agents/{agentId}/hook-rules',
      tag: TAG,
      access: 'write',
      summary: 'Create a hook of the agent: one event, a field mapping, one warp (internal, inbound) or one URL (web)',
      description:
        'internal: a platform event runs the warp; inbound: POST /agents/{agentUuid}/hooks?source=<event> runs it; ' +
        'web: the agent’s output events are POSTed, signed, to the url (its secret is in this response only). The ' +
        'warp must be a built-in warp or a private warp of the team; the mapping maps warp inputs to payload paths.',
      params: agentParams,
      body: { kind: 'json', schema: hookCreateSchema },
      responses: {
        201: json(z.object({ hook: hookSchema, secret: z.string().optional() }), 'The hook', locationHeader),
      },
      errors: [404, 422],
      handler: async ({ req, params, body }) => {
        const { team, principal } = authOf(req);
        const created = await createHook(ctx, team.id, params.agentId, principal.userId, body);
        return {
          status: 201,
          body: created,
          headers: {
            Location: `${ctx.config.baseUrl}/agents/${params.agentId}/hook-rules/${created.hook.id}`,
            'Cache-Control': 'no-store',
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/hook-rules',
      tag: TAG,
      access: 'read',
      summary: "The agent's hooks, newest first (system-owned ones, of automations, included)",
      params: agentParams,
      query: hookListQuerySchema,
      responses: { 200: json(pageSchema(hookSchema), 'A page of hooks') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listHooks(ctx, authOf(req).team.id, params.agentId, query),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/hook-rules/{hookId}',
      tag: TAG,
      access: 'read',
      summary: 'One hook',
      params: hookParams,
      responses: { 200: json(hookSchema, 'The hook') },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await getHook(ctx, authOf(req).team.id, params.agentId, params.hookId),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/agents/{agentId}/hook-rules/{hookId}',
      tag: TAG,
      access: 'write',
      summary: 'Enable or disable a hook (a system-owned hook follows its automation: 422 system_owned_hook)',
      params: hookParams,
      body: { kind: 'json', schema: hookToggleSchema },
      responses: { 200: json(hookSchema, 'The hook') },
      errors: [422],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await toggleHook(ctx, authOf(req).team.id, params.agentId, params.hookId, body.enabled),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/agents/{agentId}/hook-rules/{hookId}',
      tag: TAG,
      access: 'write',
      summary: 'Delete a hook with its runs (a system-owned hook: 422 system_owned_hook)',
      params: hookParams,
      responses: { 204: noContent('Deleted') },
      errors: [422],
      handler: async ({ req, params }) => {
        await deleteHook(ctx, authOf(req).team.id, params.agentId, params.hookId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/agents/{agentId}/auth-keys',
      tag: TAG,
      access: 'write',
      summary: 'Create an AGENT_AUTH_KEY for the agent hooks path; the key is in this response only',
      description:
        'By a team owner or admin with an API token (never an agent). Stored as its sha256. To rotate: create a ' +
        'new key, move the runtime to it, then revoke the old one.',
      params: agentParams,
      responses: { 201: json(authKeyWithSecretSchema, 'The key, shown once') },
      handler: async ({ req, params }) => {
        const { team, principal } = authOf(req);
        return {
          status: 201,
          body: await createAuthKey(ctx.db, team.id, params.agentId, principal),
          headers: { 'Cache-Control': 'no-store' },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/auth-keys',
      tag: TAG,
      access: 'read',
      summary: "The agent's live AGENT_AUTH_KEYs: prefix, creation and last use (never the keys)",
      params: agentParams,
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(authKeySchema), 'A page of keys, newest first') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listAuthKeys(ctx.db, authOf(req).team.id, params.agentId, query),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/agents/{agentId}/auth-keys/{keyId}',
      tag: TAG,
      access: 'write',
      summary: 'Revoke an AGENT_AUTH_KEY (at once: the next hook call with it is 401)',
      params: keyParams,
      responses: { 204: noContent('Revoked') },
      handler: async ({ req, params }) => {
        const { team, principal } = authOf(req);
        await revokeAuthKey(ctx.db, team.id, params.agentId, params.keyId, principal);
        return { status: 204 };
      },
    }),
  ];
}
