import { z } from 'zod';
import {
  getInboxMessage,
  inboxAddressOf,
  inboxMessageSchema,
  inboxMessageSummarySchema,
  listInboxMessages,
} from './inboxMessages';
import { agentParams, onAgent } from '../agents/agentParams';
import { defineOperation, Feature, id } from '../platform/operation';
import { pageQuerySchema, pageSchema } from '../platform/pagination';

const agentArg = {
  agentId: z
    .uuid()
    .optional()
    .describe("The agent (uuid); omitted: the connected agent. An agent's own credential reads only its own"),
};
const inboxListArgs = z.strictObject({
  ...agentArg,
  limit: z.number().int().min(1).max(100).default(25),
  cursor: z.string().min(1).max(200).optional().describe('pagination.nextCursor of the previous page'),
});
const inboxMessageArgs = z.strictObject({ ...agentArg, messageId: id('inbox message') });

const inboxPageSchema = pageSchema(inboxMessageSummarySchema);
/** A page of the inbox with its address (what a tool answers; HTTP answers the page). */
export const inboxListingSchema = inboxPageSchema.extend({ address: z.string() });

/**
 * The agent's receive-only mailbox at INBOX_DOMAIN (docs/INBOX.md): read only, as mail arrives by
 * SMTP; nothing is ever sent from it.
 */
export const inbox: Feature = {
  name: 'inbox',
  operations: [
    defineOperation({
      name: 'inbox.list',
      access: { level: 'read', app: 'core' },
      output: inboxListingSchema,
      handler: async (ctx, { team, principal }, { agentId, ...page }) => {
        const messages = await listInboxMessages(ctx.db, team.id, agentId, principal, page);
        return { address: inboxAddressOf(agentId, ctx.config.INBOX_DOMAIN), ...messages };
      },
      http: {
        method: 'get',
        path: '/agents/{agentId}/inbox',
        tag: 'Agents',
        summary: "The mail the agent's inbox address received, newest first (no bodies)",
        description:
          'The address is `<agentId>@{inbox_domain}`; it only receives. A credential bound to an agent reads its own.',
        status: 200,
        answer: 'A page of messages',
        params: agentParams,
        query: pageQuerySchema,
        answerSchema: inboxPageSchema,
        reply: ({ data, pagination }) => ({ status: 200, body: { data, pagination } }),
      },
      mcp: {
        name: 'list_inbox_messages',
        title: 'List received email',
        description:
          "The mail received at the agent's inbox address (<agent uuid>@inbox domain, answered as `address`), newest " +
          'first: sender, subject, a snippet, size, the matching contactId if the sender is a contact of the team. A ' +
          'page at a time: pass pagination.nextCursor back as cursor. Read one whole with get_inbox_message. The ' +
          'address only receives: to answer, send from an email integration.',
        input: inboxListArgs,
        toInput: (args: z.infer<typeof inboxListArgs>, caller) => onAgent(args, caller),
      },
    }),
    defineOperation({
      name: 'inbox.get',
      access: { level: 'read', app: 'core' },
      output: inboxMessageSchema,
      handler: (ctx, { team, principal }, { agentId, messageId }) =>
        getInboxMessage(ctx.db, team.id, agentId, principal, messageId),
      http: {
        method: 'get',
        path: '/agents/{agentId}/inbox/{messageId}',
        tag: 'Agents',
        summary: 'One received message: addresses, subject, text and HTML bodies, threading headers',
        status: 200,
        answer: 'The message',
        params: agentParams.extend({ messageId: z.string().max(100) }),
      },
      mcp: {
        name: 'get_inbox_message',
        title: 'Read a received email',
        description:
          'One message of the agent’s inbox (id from list_inbox_messages): from, to, cc, subject, text and html ' +
          'bodies, Date / Reply-To / In-Reply-To / References headers, attachment names and sizes (not contents).',
        input: inboxMessageArgs,
        toInput: (args: z.infer<typeof inboxMessageArgs>, caller) => onAgent(args, caller),
      },
    }),
  ],
};
