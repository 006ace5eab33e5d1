import { z } from 'zod';
import { agentParams } from './agentParams';
import {
  clearSecret,
  listSecrets,
  secretKeyInputSchema,
  secretKeySchema,
  secretSetSchema,
  secretStatus,
  secretStatusSchema,
  setSecret,
} from './agentSecrets';
import { connectedAgent, defineOperation, PENDING_NOTE } from '../platform/operation';
import { pageQuerySchema, pageSchema, type PageQuery } from '../platform/pagination';

const tag = 'Agents';
const secretParams = agentParams.extend({ key: secretKeySchema });

/**
 * The agent's secrets: keys and status only; a value goes in and never comes out. On MCP they are
 * the connected agent's; over HTTP the path names the agent.
 */
export const secretOperations = [
  defineOperation({
    name: 'agents.secrets',
    access: { level: 'read', app: 'core' },
    output: pageSchema(secretStatusSchema),
    handler: (ctx, { team }, { agentId, ...page }) => listSecrets(ctx.db, team.id, agentId, page),
    http: {
      method: 'get',
      path: '/agents/{agentId}/secrets',
      tag,
      summary: "An agent's secrets by key: keys and status, never values",
      status: 200,
      answer: 'A page of secrets',
      params: agentParams,
      query: pageQuerySchema,
    },
    mcp: {
      name: 'secret_list',
      title: "List the agent's secrets",
      description:
        "The keys of the connected agent's secrets and when each was set, by key, a page at a time (pass " +
        'pagination.nextCursor back as cursor). Values are never returned.',
      input: pageQuerySchema,
      toInput: (page: PageQuery, caller) => ({ ...page, agentId: connectedAgent(caller) }),
    },
  }),
  defineOperation({
    name: 'agents.secretStatus',
    access: { level: 'read', app: 'core' },
    input: secretKeyInputSchema,
    output: secretStatusSchema,
    handler: (ctx, caller, { key }) => secretStatus(ctx.db, caller.team.id, connectedAgent(caller), key),
    mcp: {
      name: 'secret_status',
      title: 'Is a secret set?',
      description:
        'Whether the connected agent has a secret under this key, and when it was set. The value is never returned.',
    },
  }),
  defineOperation({
    name: 'agents.setSecret',
    access: { level: 'write', app: 'core', inTurns: 'never' },
    output: secretStatusSchema,
    handler: (ctx, { team, principal }, { agentId, ...input }) =>
      setSecret(ctx.db, ctx.secretBox, team.id, agentId, input, principal.userId),
    http: {
      method: 'put',
      path: '/agents/{agentId}/secrets/{key}',
      tag,
      summary: 'Set (or replace) a secret; stored encrypted, never returned',
      status: 200,
      answer: "The secret's status",
      params: secretParams,
      body: { schema: secretSetSchema.omit({ key: true }) },
    },
    mcp: {
      name: 'secret_set',
      title: 'Set a secret',
      description:
        "Stores a secret for the connected agent (encrypted; an existing key is replaced). Answers the key's " +
        'status only; the value cannot be read back.',
      input: secretSetSchema,
      toInput: (input: z.infer<typeof secretSetSchema>, caller) => ({ ...input, agentId: connectedAgent(caller) }),
    },
  }),
  // On MCP its arguments and effect are the warp's (./sensitiveWrites.ts), on the connected agent.
  defineOperation({
    name: 'agents.clearSecret',
    access: { level: 'write', app: 'core', sensitive: 'secret-clear' },
    output: secretStatusSchema,
    handler: (ctx, { team }, { agentId, key }) => clearSecret(ctx.db, team.id, agentId, key),
    http: {
      method: 'delete',
      path: '/agents/{agentId}/secrets/{key}',
      tag,
      summary: 'Clear a secret (idempotent)',
      status: 200,
      answer: "The secret's status",
      params: secretParams,
    },
    mcp: {
      name: 'secret_clear',
      title: 'Clear a secret',
      description: `Removes one of the connected agent's secrets. ${PENDING_NOTE}`,
    },
  }),
];
