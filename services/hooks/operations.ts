import { z } from 'zod';
import type { AppContext } from '../platform/context';
import { connectedAgent, defineOperation, Feature, id } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';
import { authKeySchema, authKeyWithSecretSchema, createAuthKey, listAuthKeys, revokeAuthKey } from './authKeys';
import { hookSchema } from './hookRows';
import {
  createHook,
  deleteHook,
  getHook,
  HookCreate,
  hookCreateSchema,
  hookListQuerySchema,
  hookToggleSchema,
  hookWithSecretSchema,
  listHooks,
  toggleHook,
} from './hooks';

const agentParams = z.object({ agentId: z.string().min(1).max(100) });
const hookParams = agentParams.extend({ hookId: z.string().min(1).max(100) });
const keyParams = agentParams.extend({ keyId: z.string().min(1).max(100) });
const hookRef = z.strictObject({ hookId: id('hook') });
const toggleArgs = hookRef.extend({ enabled: z.boolean() });
const tag = 'Hooks';
const access = { level: 'read', app: 'board' } as const;
const writes = { level: 'write', app: 'board' } as const;
const hookUrl = (agentId: string, hookId: string, ctx: AppContext) =>
  `${ctx.config.baseUrl}/agents/${agentId}/hook-rules/${hookId}`;

/**
 * An agent's hooks (docs/HOOKS.md): on MCP the Board app's tools, over the connected agent's
 * hooks; over HTTP any agent's, with its AGENT_AUTH_KEYs. Auth keys have no tool on purpose: a
 * person creates them in the product, never an agent.
 */
export const hooks: Feature = {
  name: 'hooks',
  operations: [
    defineOperation({
      name: 'hooks.create',
      // The answer may carry a web hook's secret, which has no place in a transcript.
      access: { ...writes, inTurns: 'never' },
      output: hookWithSecretSchema,
      handler: (ctx, { team, principal }, { agentId, ...input }) =>
        createHook(ctx, team.id, agentId, principal.userId, input),
      http: {
        method: 'post',
        path: '/agents/{agentId}/hook-rules',
        tag,
        summary:
          'Create a hook of the agent: one event, a field mapping, one warp (internal, inbound) or one URL (web)',
        description:
          'internal: a platform event runs the warp; inbound: POST /agents/{agentUuid}/hooks?source=<event> runs it; ' +
          'web: the agent’s output events are POSTed, signed, to the url (its secret is in this response only). The ' +
          'warp must be a built-in warp or a private warp of the team; the mapping maps warp inputs to payload paths.',
        status: 201,
        answer: 'The hook',
        params: agentParams,
        body: { schema: hookCreateSchema },
        location: (created, ctx) => hookUrl(created.hook.agentId, created.hook.id, ctx),
        reply: (created, ctx) => ({
          status: 201,
          body: created,
          headers: { Location: hookUrl(created.hook.agentId, created.hook.id, ctx), 'Cache-Control': 'no-store' },
        }),
        errors: [404, 422],
      },
      mcp: {
        name: 'create_hook',
        title: 'Create a hook',
        description:
          'A rule of the connected agent: one event, a field mapping, one warp run at once. source internal: a platform ' +
          'event (contact.created, contact.updated, campaign.completed, artifact.sent, ...) runs the warp; inbound: a ' +
          'POST to /v1/agents/{agentUuid}/hooks?source=<event> (with the agent auth key) runs it; web: the agent’s ' +
          'output events (agent.action, agent.message, user.message) or its inbox mail (email.received) are POSTed, signed, to url (the secret is in this ' +
          'answer only). mapping maps warp inputs to payload paths: { "contactId": "$.contact.id" }; inputs are fixed ' +
          'inputs. The warp (built-in or private) and its input names are checked now.',
        input: hookCreateSchema,
        toInput: (args: HookCreate, caller) => ({ ...args, agentId: connectedAgent(caller) }),
      },
    }),
    defineOperation({
      name: 'hooks.list',
      access,
      output: pageSchema(hookSchema),
      handler: (ctx, { team }, { agentId, ...query }) => listHooks(ctx, team.id, agentId, query),
      http: {
        method: 'get',
        path: '/agents/{agentId}/hook-rules',
        tag,
        summary: "The agent's hooks, newest first (system-owned ones, of automations, included)",
        status: 200,
        answer: 'A page of hooks',
        params: agentParams,
        query: hookListQuerySchema,
      },
      mcp: {
        name: 'list_hooks',
        title: 'List hooks',
        description:
          "The connected agent's hooks, newest first: source (internal, inbound, web), event, warp, mapping, url, " +
          'enabled, and systemOwned (an automation’s own hook, which follows its automation). Filter by source.',
        input: hookListQuerySchema,
        toInput: (args: z.infer<typeof hookListQuerySchema>, caller) => ({ ...args, agentId: connectedAgent(caller) }),
      },
    }),
    defineOperation({
      name: 'hooks.get',
      access,
      output: hookSchema,
      handler: (ctx, { team }, { agentId, hookId }) => getHook(ctx, team.id, agentId, hookId),
      http: {
        method: 'get',
        path: '/agents/{agentId}/hook-rules/{hookId}',
        tag,
        summary: 'One hook',
        status: 200,
        answer: 'The hook',
        params: hookParams,
      },
    }),
    defineOperation({
      name: 'hooks.toggle',
      access: writes,
      output: hookSchema,
      handler: (ctx, { team }, { agentId, hookId, enabled }) => toggleHook(ctx, team.id, agentId, hookId, enabled),
      http: {
        method: 'patch',
        path: '/agents/{agentId}/hook-rules/{hookId}',
        tag,
        summary: 'Enable or disable a hook (a system-owned hook follows its automation: 422 system_owned_hook)',
        status: 200,
        answer: 'The hook',
        params: hookParams,
        body: { schema: hookToggleSchema },
        errors: [422],
      },
      mcp: {
        name: 'toggle_hook',
        title: 'Enable or disable a hook',
        description:
          'Enables or disables one of the connected agent’s hooks. An automation’s own hook (systemOwned) is refused: ' +
          'enable or disable its automation instead.',
        input: toggleArgs,
        toInput: (args: z.infer<typeof toggleArgs>, caller) => ({ ...args, agentId: connectedAgent(caller) }),
      },
    }),
    defineOperation({
      name: 'hooks.delete',
      access: writes,
      // HTTP answers 204; the tool answers what it deleted.
      handler: async (ctx, { team }, { agentId, hookId }) => {
        await deleteHook(ctx, team.id, agentId, hookId);
        return { deleted: true, hookId };
      },
      http: {
        method: 'delete',
        path: '/agents/{agentId}/hook-rules/{hookId}',
        tag,
        summary: 'Delete a hook with its runs (a system-owned hook: 422 system_owned_hook)',
        status: 204,
        answer: 'Deleted',
        params: hookParams,
        errors: [422],
      },
      mcp: {
        name: 'delete_hook',
        title: 'Delete a hook',
        description:
          'Deletes one of the connected agent’s hooks with its runs. An automation’s own hook (systemOwned) is refused.',
        input: hookRef,
        toInput: (args: z.infer<typeof hookRef>, caller) => ({ ...args, agentId: connectedAgent(caller) }),
      },
    }),
    defineOperation({
      name: 'hooks.createAuthKey',
      access: writes,
      output: authKeyWithSecretSchema,
      handler: (ctx, { team, principal }, { agentId }) => createAuthKey(ctx.db, team.id, agentId, principal),
      http: {
        method: 'post',
        path: '/agents/{agentId}/auth-keys',
        tag,
        summary: 'Create an AGENT_AUTH_KEY for the agent hooks path; the key is in this response only',
        description:
          'By a team owner or admin with an API token (never an agent). Stored as its sha256. To rotate: create a ' +
          'new key, move the runtime to it, then revoke the old one.',
        status: 201,
        answer: 'The key, shown once',
        params: agentParams,
        reply: (created) => ({ status: 201, body: created, headers: { 'Cache-Control': 'no-store' } }),
      },
    }),
    defineOperation({
      name: 'hooks.listAuthKeys',
      access,
      output: pageSchema(authKeySchema),
      handler: (ctx, { team }, { agentId, ...page }) => listAuthKeys(ctx.db, team.id, agentId, page),
      http: {
        method: 'get',
        path: '/agents/{agentId}/auth-keys',
        tag,
        summary: "The agent's live AGENT_AUTH_KEYs: prefix, creation and last use (never the keys)",
        status: 200,
        answer: 'A page of keys, newest first',
        params: agentParams,
        query: pageQuerySchema,
      },
    }),
    defineOperation({
      name: 'hooks.revokeAuthKey',
      access: writes,
      handler: (ctx, { team, principal }, { agentId, keyId }) =>
        revokeAuthKey(ctx.db, team.id, agentId, keyId, principal),
      http: {
        method: 'delete',
        path: '/agents/{agentId}/auth-keys/{keyId}',
        tag,
        summary: 'Revoke an AGENT_AUTH_KEY (at once: the next hook call with it is 401)',
        status: 204,
        answer: 'Revoked',
        params: keyParams,
      },
    }),
  ],
};
