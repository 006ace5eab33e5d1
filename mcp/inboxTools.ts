import { z } from 'zod';
import { getInboxMessage, inboxAddressOf, listInboxMessages } from '../services/inbox/inboxMessages';
import { id, tool, Tool, ToolCall } from './toolKit';

const agentArg = {
  agentId: z
    .uuid()
    .optional()
    .describe("The agent (uuid); omitted: the connected agent. An agent's own credential reads only its own"),
};
const agentOf = (call: ToolCall, args: { agentId?: string }) => args.agentId ?? call.agentId;

/** The agent's receive-only mailbox (docs/INBOX.md): reading only; nothing is ever sent from it. */
export const inboxTools: Tool[] = [
  tool({
    name: 'list_inbox_messages',
    title: 'List received email',
    description:
      "The mail received at the agent's inbox address (<agent uuid>@inbox domain, answered as `address`), newest " +
      'first: sender, subject, a snippet, size, the matching contactId if the sender is a contact of the team. A ' +
      'page at a time: pass pagination.nextCursor back as cursor. Read one whole with get_inbox_message. The ' +
      'address only receives: to answer, send from an email integration.',
    app: 'core',
    access: 'read',
    input: z.strictObject({
      ...agentArg,
      limit: z.number().int().min(1).max(100).default(25),
      cursor: z.string().min(1).max(200).optional().describe('pagination.nextCursor of the previous page'),
    }),
    run: async (call, { agentId, ...page }) => {
      const agent = agentOf(call, { agentId });
      const messages = await listInboxMessages(call.ctx.db, call.team.id, agent, call.principal, page);
      return { address: inboxAddressOf(agent, call.ctx.config.INBOX_DOMAIN), ...messages };
    },
  }),
  tool({
    name: 'get_inbox_message',
    title: 'Read a received email',
    description:
      'One message of the agent’s inbox (id from list_inbox_messages): from, to, cc, subject, text and html ' +
      'bodies, Date / Reply-To / In-Reply-To / References headers, attachment names and sizes (not contents).',
    app: 'core',
    access: 'read',
    input: z.strictObject({ ...agentArg, messageId: id('inbox message') }),
    run: (call, { agentId, messageId }) =>
      getInboxMessage(call.ctx.db, call.team.id, agentOf(call, { agentId }), call.principal, messageId),
  }),
];
