import { z } from 'zod';
import { agentInfo, agentInfoSchema } from './agentInfo';
import { agentParams } from './agentParams';
import { agentSchema, agentUpdateSchema, listAgents, updateAgent } from './agents';
import { integrationInputSchema, integrationSchema, listIntegrations, setIntegration } from './integrations';
import { secretOperations } from './secretOperations';
import { connectedAgent, defineOperation, Feature } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';

const tag = 'Agents';

/** The team's agents: their settings, channel integrations and secrets (the core tools on MCP). */
export const agents: Feature = {
  name: 'agents',
  operations: [
    defineOperation({
      name: 'agents.list',
      access: { level: 'read', app: 'core' },
      input: pageQuerySchema,
      output: pageSchema(agentSchema),
      handler: (ctx, { team }, page) => listAgents(ctx.db, team.id, page),
      http: {
        method: 'get',
        path: '/agents',
        tag,
        summary: "List the team's agents",
        status: 200,
        answer: 'A page of agents',
        query: pageQuerySchema,
      },
      mcp: {
        name: 'svc_list_agents',
        title: "List the team's agents",
        description:
          'The agents of the team (uuid, name, slug, mode), a page at a time: pass pagination.nextCursor back as ' +
          'cursor for the next page.',
      },
    }),
    // Name and mode (auto: sensitive writes run at once; manual: they wait for approval), model, and
    // access (other teams' callers and their payment gate: a team admin's change).
    defineOperation({
      name: 'agents.update',
      access: { level: 'write', app: 'core' },
      output: agentSchema,
      handler: (ctx, { team, principal }, { agentId, ...changes }) =>
        updateAgent(ctx.db, team.id, agentId, changes, principal),
      http: {
        method: 'patch',
        path: '/agents/{agentId}',
        tag,
        summary: 'Rename an agent, set its mode (auto | manual), its model, or who outside the team may prompt it',
        status: 200,
        answer: 'The agent',
        params: agentParams,
        body: { schema: agentUpdateSchema },
      },
    }),
    defineOperation({
      name: 'agents.integrations',
      access: { level: 'read', app: 'core' },
      output: pageSchema(integrationSchema),
      handler: (ctx, { team }, { agentId, ...page }) => listIntegrations(ctx.db, ctx.secretBox, team.id, agentId, page),
      http: {
        method: 'get',
        path: '/agents/{agentId}/integrations',
        tag,
        summary: "An agent's channel integrations by channel (secrets never shown)",
        status: 200,
        answer: 'A page of integrations',
        params: agentParams,
        query: pageQuerySchema,
      },
    }),
    defineOperation({
      name: 'agents.setIntegration',
      access: { level: 'write', app: 'core' },
      output: integrationSchema,
      handler: (ctx, { team }, { agentId, channel, ...input }) =>
        setIntegration(
          ctx.db,
          ctx.secretBox,
          { inboxDomain: ctx.config.INBOX_DOMAIN },
          team.id,
          agentId,
          channel,
          input,
        ),
      http: {
        method: 'put',
        path: '/agents/{agentId}/integrations/{channel}',
        tag,
        summary: "Set an agent's integration for email, sms, whatsapp or push",
        status: 200,
        answer: 'The integration',
        params: agentParams.extend({ channel: z.string().describe('email, sms, whatsapp or push') }),
        body: { schema: integrationInputSchema },
        errors: [422],
      },
    }),
    ...secretOperations,
    defineOperation({
      name: 'agents.info',
      access: { level: 'read', app: 'core' },
      input: z.strictObject({}),
      output: agentInfoSchema,
      handler: (ctx, caller) => agentInfo(ctx, caller.team, connectedAgent(caller), caller.installed ?? new Set()),
      mcp: {
        name: 'svc_agent_info',
        title: 'About this agent',
        description:
          'The connected agent (uuid, name, slug, mode auto/manual), its team, its active channel integrations, ' +
          'the installed apps and the MCP credits left this billing cycle. Call it first to learn what you can do.',
      },
    }),
  ],
};
