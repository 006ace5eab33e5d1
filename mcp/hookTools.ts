import { z } from 'zod';
import {
  createHook,
  deleteHook,
  hookCreateSchema,
  hookListQuerySchema,
  listHooks,
  toggleHook,
} from '../services/hooks/hooks';
import { id, tool, Tool } from './toolKit';

const hookRef = z.strictObject({ hookId: id('hook') });

/**
 * The Board app's hook tools (docs/HOOKS.md): the connected agent's hooks. Agent auth keys are
 * not here on purpose: a person creates them in the product (POST /v1/agents/{id}/auth-keys).
 */
export const hookTools: Tool[] = [
  tool({
    name: 'list_hooks',
    title: 'List hooks',
    description:
      "The connected agent's hooks, newest first: source (internal, inbound, web), event, warp, mapping, url, " +
      'enabled, and systemOwned (an automation’s own hook, which follows its automation). Filter by source.',
    app: 'board',
    access: 'read',
    input: hookListQuerySchema,
    run: ({ ctx, team, agentId }, query) => listHooks(ctx, team.id, agentId, query),
  }),
  tool({
    name: 'create_hook',
    title: 'Create a hook',
    description:
      'A rule of the connected agent: one event, a field mapping, one warp run at once. source internal: a platform ' +
      'event (contact.created, contact.updated, campaign.completed, artifact.sent, ...) runs the warp; inbound: a ' +
      'POST to /v1/agents/{agentUuid}/hooks?source=<event> (with the agent auth key) runs it; web: the agent’s ' +
      'output events (agent.action, agent.message, user.message) or its inbox mail (email.received) are POSTed, signed, to url (the secret is in this ' +
      'answer only). mapping maps warp inputs to payload paths: { "contactId": "$.contact.id" }; inputs are fixed ' +
      'inputs. The warp (built-in or private) and its input names are checked now.',
    app: 'board',
    access: 'write',
    input: hookCreateSchema,
    // The answer may carry a web hook's secret, which has no place in a transcript.
    inTurns: 'never',
    run: ({ ctx, team, principal, agentId }, input) => createHook(ctx, team.id, agentId, principal.userId, input),
  }),
  tool({
    name: 'toggle_hook',
    title: 'Enable or disable a hook',
    description:
      'Enables or disables one of the connected agent’s hooks. An automation’s own hook (systemOwned) is refused: ' +
      'enable or disable its automation instead.',
    app: 'board',
    access: 'write',
    input: hookRef.extend({ enabled: z.boolean() }),
    run: ({ ctx, team, agentId }, { hookId, enabled }) => toggleHook(ctx, team.id, agentId, hookId, enabled),
  }),
  tool({
    name: 'delete_hook',
    title: 'Delete a hook',
    description:
      'Deletes one of the connected agent’s hooks with its runs. An automation’s own hook (systemOwned) is refused.',
    app: 'board',
    access: 'write',
    input: hookRef,
    run: async ({ ctx, team, agentId }, { hookId }) => {
      await deleteHook(ctx, team.id, agentId, hookId);
      return { deleted: true, hookId };
    },
  }),
];
