import { z } from 'zod';
import { agentSchema, agentUpdateSchema, listAgents, updateAgent } from '../../services/agents/agents';
import {
  clearSecret,
  listSecrets,
  secretKeySchema,
  secretSetSchema,
  secretStatusSchema,
  setSecret,
} from '../../services/agents/agentSecrets';
import type { AppContext } from '../../services/platform/context';
import {
  integrationInputSchema,
  integrationSchema,
  listIntegrations,
  setIntegration,
} from '../../services/agents/integrations';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import { authOf } from '../auth';
import { defineRoute, json, Route } from '../routeTable';

const agentParams = z.object({ agentId: z.string() });
const secretParams = agentParams.extend({ key: secretKeySchema });

export function agentsRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/agents',
      tag: 'Agents',
      access: 'read',
      summary: "List the team's agents",
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(agentSchema), 'A page of agents') },
      handler: async ({ req, query }) => ({ status: 200, body: await listAgents(ctx.db, authOf(req).team.id, query) }),
    }),
    // Name and mode (auto: sensitive writes run at once; manual: they wait for approval), model, and
    // access (other teams' callers and their payment gate: a team admin's change).
    defineRoute({
      method: 'patch',
      path: '/agents/{agentId}',
      tag: 'Agents',
      access: 'write',
      summary: 'Rename an agent, set its mode (auto | manual), its model, or who outside the team may prompt it',
      params: agentParams,
      body: { kind: 'json', schema: agentUpdateSchema },
      responses: { 200: json(agentSchema, 'The agent') },
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await updateAgent(ctx.db, authOf(req).team.id, params.agentId, body, authOf(req).principal),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/integrations',
      tag: 'Agents',
      access: 'read',
      summary: "An agent's channel integrations by channel (secrets never shown)",
      params: agentParams,
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(integrationSchema), 'A page of integrations') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listIntegrations(ctx.db, ctx.secretBox, authOf(req).team.id, params.agentId, query),
      }),
    }),
    defineRoute({
      method: 'put',
      path: '/agents/{agentId}/integrations/{channel}',
      tag: 'Agents',
      access: 'write',
      summary: "Set an agent's integration for email, sms, whatsapp or push",
      params: agentParams.extend({ channel: z.string().describe('email, sms, whatsapp or push') }),
      body: { kind: 'json', schema: integrationInputSchema },
      responses: { 200: json(integrationSchema, 'The integration') },
      errors: [422],
      handler: async ({ req, params, body }) => ({
        status: 200,
        body: await setIntegration(
          ctx.db,
          ctx.secretBox,
          { inboxDomain: ctx.config.INBOX_DOMAIN },
          authOf(req).team.id,
          params.agentId,
          params.channel,
          body,
        ),
      }),
    }),
    // The agent's secrets: keys and status only; a value goes in and never comes out.
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/secrets',
      tag: 'Agents',
      access: 'read',
      summary: "An agent's secrets by key: keys and status, never values",
      params: agentParams,
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(secretStatusSchema), 'A page of secrets') },
      handler: async ({ req, params, query }) => ({
        status: 200,
        body: await listSecrets(ctx.db, authOf(req).team.id, params.agentId, query),
      }),
    }),
    defineRoute({
      method: 'put',
      path: '/agents/{agentId}/secrets/{key}',
      tag: 'Agents',
      access: 'write',
      summary: 'Set (or replace) a secret; stored encrypted, never returned',
      params: secretParams,
      body: { kind: 'json', schema: secretSetSchema.omit({ key: true }) },
      responses: { 200: json(secretStatusSchema, "The secret's status") },
      handler: async ({ req, params, body }) => {
        const { team, principal } = authOf(req);
        return {
          status: 200,
          body: await setSecret(
            ctx.db,
            ctx.secretBox,
            team.id,
            params.agentId,
            { ...body, key: params.key },
            principal.userId,
          ),
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/agents/{agentId}/secrets/{key}',
      tag: 'Agents',
      access: 'write',
      summary: 'Clear a secret (idempotent)',
      params: secretParams,
      responses: { 200: json(secretStatusSchema, "The secret's status") },
      handler: async ({ req, params }) => ({
        status: 200,
        body: await clearSecret(ctx.db, authOf(req).team.id, params.agentId, params.key),
      }),
    }),
  ];
}
