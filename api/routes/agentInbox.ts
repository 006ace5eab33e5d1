import { z } from 'zod';
import {
  getInboxMessage,
  inboxMessageSchema,
  inboxMessageSummarySchema,
  listInboxMessages,
} from '../../services/inbox/inboxMessages';
import type { AppContext } from '../../services/platform/context';
import { pageQuerySchema, pageSchema } from '../../services/platform/pagination';
import { authOf } from '../auth';
import { defineRoute, json, Route } from '../routeTable';

const agentParams = z.object({ agentId: z.string() });

/** The agent's receive-only mailbox at INBOX_DOMAIN (docs/INBOX.md): read only, as mail arrives by SMTP. */
export function agentInboxRoutes(ctx: AppContext): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/inbox',
      tag: 'Agents',
      access: 'read',
      summary: "The mail the agent's inbox address received, newest first (no bodies)",
      description:
        'The address is `<agentId>@{inbox_domain}`; it only receives. A credential bound to an agent reads its own.',
      params: agentParams,
      query: pageQuerySchema,
      responses: { 200: json(pageSchema(inboxMessageSummarySchema), 'A page of messages') },
      handler: async ({ req, params, query }) => {
        const { team, principal } = authOf(req);
        return { status: 200, body: await listInboxMessages(ctx.db, team.id, params.agentId, principal, query) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/agents/{agentId}/inbox/{messageId}',
      tag: 'Agents',
      access: 'read',
      summary: 'One received message: addresses, subject, text and HTML bodies, threading headers',
      params: agentParams.extend({ messageId: z.string().max(100) }),
      responses: { 200: json(inboxMessageSchema, 'The message') },
      handler: async ({ req, params }) => {
        const { team, principal } = authOf(req);
        return {
          status: 200,
          body: await getInboxMessage(ctx.db, team.id, params.agentId, principal, params.messageId),
        };
      },
    }),
  ];
}
